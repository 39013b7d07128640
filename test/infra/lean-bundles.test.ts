import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sdkClientPackages } from '../../lib/constructs/bundling.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { deployedFunctions, handlerMetafile } from '../support/bundles.js';
import { CHANNELS } from '../support/channels.js';
import { fleetTemplates } from '../support/fleet-templates.js';
import { synth } from '../support/synth.js';

/**
 * Lean Lambdas (issue 15): every handler bundle carries the SDK clients its function calls and no
 * other (an unused client costs init time: client-ec2 alone is ~550 KB of schemas, so EC2 goes
 * through pod-doctor's EC2 Query client, `ec2-query`). The expected set is this explicit map; the
 * template then proves each client is one the function's role may call.
 */
const CLIENTS: Record<string, readonly string[]> = {
  'approval-callback': ['dynamodb', 'secrets-manager', 'sfn'],
  // The chat approvals' consumer decides as the review page does.
  'approval-chat': ['dynamodb', 'secrets-manager', 'sfn'],
  'approval-key-rotation': ['secrets-manager'],
  'approval-request': ['dynamodb', 'secrets-manager', 'sns'],
  'command-wait': ['dynamodb', 'sfn'],
  'check-changes': ['dynamodb'],
  'check-ecr': ['dynamodb', 'ecr'],
  'check-eks': ['ec2-query', 'eks'],
  'check-iam': ['eks', 'iam'],
  'check-network': ['ec2-query'],
  'config-writer': ['dynamodb'],
  decide: ['dynamodb', 'eks'],
  'fleet-intake': ['dynamodb', 's3', 'sfn'],
  door: ['dynamodb', 'ec2-query', 'eks', 'iam', 's3', 'ssm'],
  'door-remedies': ['dynamodb', 'ec2-query', 'ecr', 'eks', 'iam', 's3', 'ssm'],
  ingest: ['dynamodb', 'ec2-query', 'eks', 's3', 'sfn', 'sns'],
  kubernetes: ['eks'],
  // sns: the one notice per cluster, rank and hour of what its limits dropped.
  'kubernetes-events': ['dynamodb', 'eks', 's3', 'sfn', 'sns'],
  'kubernetes-sweep': ['dynamodb', 'eks', 'sfn'],
  'log-group-prerequisites': ['cloudwatch-logs'],
  notices: ['s3'],
  'open-incident': ['dynamodb', 'ssm'],
  'resolve-node': ['ec2-query', 'iam'],
  'signal-check': ['cloudtrail', 'cloudwatch-logs', 'dynamodb', 'sns'],
  'spoke-ingest': ['eventbridge'],
  summarize: ['dynamodb', 's3'],
  verify: [],
};

/** The IAM service prefix of each SDK client (what the function's role must be allowed to call). */
const IAM_SERVICE: Record<string, string> = {
  cloudtrail: 'cloudtrail',
  'cloudwatch-logs': 'logs',
  dynamodb: 'dynamodb',
  ec2: 'ec2',
  'ec2-query': 'ec2',
  ecr: 'ecr',
  eks: 'eks',
  eventbridge: 'events',
  iam: 'iam',
  s3: 's3',
  'secrets-manager': 'secretsmanager',
  sfn: 'states',
  sns: 'sns',
  ssm: 'ssm',
};

const handlers = readdirSync(join(PROJECT_ROOT, 'lambdas', 'handlers'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => basename(f, '.ts'))
  .sort();

/** The client names (`ec2`, `dynamodb`, …) in the handler's bundle, built with the deployed options. */
function bundledClients(name: string): string[] {
  const packages = sdkClientPackages(handlerMetafile(name));
  // lib-dynamodb is the document client over client-dynamodb, not a client of its own.
  return packages
    .filter((p) => p !== '@aws-sdk/lib-dynamodb')
    .map((p) => p.replace(/^@aws-sdk\/client-/, ''))
    .sort();
}

describe('each Lambda bundle loads only the SDK clients its function uses', () => {
  it('every handler is in the map', () => {
    expect(Object.keys(CLIENTS).sort()).toEqual(handlers);
  });

  it.each(handlers)('%s', (name) => {
    expect(bundledClients(name)).toEqual([...(CLIENTS[name] ?? [])].sort());
  });
});

/** The bundle's inputs that made it into the output (tree-shaken ones are in the metafile with 0 bytes). */
function bundledInputs(name: string): string[] {
  return Object.values(handlerMetafile(name).outputs).flatMap((o) =>
    Object.entries(o.inputs)
      .filter(([, i]) => i.bytesInOutput > 0)
      .map(([p]) => p),
  );
}

describe("each Lambda bundle validates with zod/mini and zod's English messages", () => {
  // Classic zod is ~70 KB more a bundle and ~10 ms of each cold start (npm run bench:init); zod/mini
  // says only "Invalid input" until a locale is configured (lambdas/core/text/zod-english.ts).
  it.each(handlers)('%s', (name) => {
    const zod = bundledInputs(name).filter((p) => p.includes('node_modules/zod/'));
    expect(zod.filter((p) => p.includes('/v4/classic/'))).toEqual([]);
    expect(zod).toEqual(
      expect.arrayContaining(['node_modules/zod/v4/mini/schemas.js', 'node_modules/zod/v4/locales/en.js']),
    );
  });
});

describe("each client in the map is one the function's role may call", () => {
  const cluster = {
    name: 'prod-eu',
    region: 'eu-west-1',
    logGroups: ['/aws/containerinsights/prod-eu/dataplane'],
    remediation: {
      roles: ['eks-node-role'],
      endpointSecurityGroups: ['sg-0fedcba9876543210'],
      subnets: ['subnet-0a1b2c3d4e5f67890'],
      pullThroughCache: {
        credentialArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ecr-pullthroughcache/hub-Xy12Ab',
      },
    },
  };
  // A configuration that deploys every function: log groups (their prerequisites), a remediation
  // scope and notification channels.
  // The fleet's hub and a spoke deploy the fleet functions.
  const fleet = fleetTemplates();
  const functions = [
    synth({ clusters: [cluster], channels: CHANNELS }).templateJson,
    fleet.PodDoctorHub,
    fleet['PodDoctorSpoke-222222222222-eu-west-1'],
  ]
    .flatMap((t) => deployedFunctions(t))
    .map((f) => ({
      handler: f.handler,
      services: new Set([...f.actions].map((a) => a.split(':')[0])),
    }));

  it('every handler is deployed, and named in its function metadata', () => {
    const deployed = new Set(functions.map((f) => f.handler));
    expect(handlers.filter((h) => !deployed.has(h))).toEqual([]);
  });

  it.each(handlers)('%s', (name) => {
    for (const fn of functions.filter((f) => f.handler === name)) {
      for (const client of CLIENTS[name]) {
        expect([...fn.services], `${name} calls ${client}`).toContain(IAM_SERVICE[client]);
      }
    }
  });
});
