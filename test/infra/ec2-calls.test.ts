import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as commands from '../../lambdas/aws/ec2/commands.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { deployedFunctions, handlerMetafile } from '../support/bundles.js';
import { synth } from '../support/synth.js';

/**
 * EC2 calls go through pod-doctor's EC2 Query client, whose commands are not @aws-sdk imports: this
 * holds them to what an SDK call site is held to. For each function, the EC2 commands its bundle's
 * own sources construct (`new DescribeSubnetsCommand(` or a `paginateDescribe…` helper) must be
 * actions its role allows.
 */
const EC2_ACTIONS = new Map(
  Object.values(commands)
    .filter((c): c is typeof commands.DescribeInstancesCommand => typeof c === 'function' && 'action' in c)
    .map((c) => [c.name, c.action]),
);

/** ec2:Action names the project sources of a handler's bundle construct. */
function ec2Calls(handler: string): string[] {
  const meta = handlerMetafile(handler);
  const sources = Object.values(meta.outputs)
    .flatMap((o) => Object.entries(o.inputs))
    .filter(([p, i]) => !p.includes('node_modules') && i.bytesInOutput > 0 && !p.includes('lambdas/aws/ec2/'))
    .map(([p]) => readFileSync(join(PROJECT_ROOT, p), 'utf8'));
  const calls = new Set<string>();
  for (const text of sources) {
    for (const m of text.matchAll(/new\s+(\w+Command)\s*\(/g)) {
      const action = EC2_ACTIONS.get(m[1]);
      if (action && /from '[./]+\/ec2\/(commands|client)\.js'/.test(text)) calls.add(action);
    }
    for (const m of text.matchAll(/paginate(Describe\w+)\s*\(/g))
      if (EC2_ACTIONS.has(`${m[1]}Command`) && /\/ec2\/(commands|client)\.js'/.test(text)) calls.add(m[1]);
  }
  return [...calls].sort();
}

/** The ec2: actions each deployed handler's role allows, by handler name. */
function allowedEc2(templateJson: Record<string, unknown>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { handler, actions } of deployedFunctions(templateJson)) {
    const ec2 = [...actions].filter((a) => a.startsWith('ec2:'));
    out.set(handler, new Set([...(out.get(handler) ?? []), ...ec2]));
  }
  return out;
}

describe('every EC2 call a function makes through the EC2 Query client is allowed by its role', () => {
  const cluster = {
    name: 'prod-eu',
    region: 'eu-west-1',
    logGroups: ['/aws/containerinsights/prod-eu/dataplane'],
    remediation: {
      roles: ['eks-node-role'],
      endpointSecurityGroups: ['sg-0fedcba9876543210'],
      subnets: ['subnet-0a1b2c3d4e5f67890'],
    },
  };
  const allowed = allowedEc2(synth({ clusters: [cluster] }).templateJson);
  // Without a remediation scope the stack deploys the door without the account remedies.
  const unscoped = allowedEc2(synth({ clusters: [{ name: 'prod-eu', region: 'eu-west-1' }] }).templateJson);

  it.each(['check-eks', 'check-network', 'door-remedies', 'ingest', 'resolve-node'])('%s', (handler) => {
    const calls = ec2Calls(handler);
    expect(calls.length, `${handler} makes EC2 calls`).toBeGreaterThan(0);
    expect(calls.filter((a) => !allowed.get(handler)?.has(`ec2:${a}`))).toEqual([]);
  });

  it('door (no remediation scope): reads only, each allowed', () => {
    const calls = ec2Calls('door');
    expect(calls).toEqual(['DescribeInstances']);
    expect(calls.filter((a) => !unscoped.get('door')?.has(`ec2:${a}`))).toEqual([]);
  });

  it('finds the calls it checks (a handler without EC2 has none)', () => {
    expect(ec2Calls('check-network')).toEqual(
      expect.arrayContaining(['DescribeRouteTables', 'DescribeSecurityGroups', 'DescribeVpcEndpoints']),
    );
    expect(ec2Calls('decide')).toEqual([]);
  });
});
