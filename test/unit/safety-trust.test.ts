import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../lambdas/aws/door/node-commands.js';
import { eksPauseRepository, isTrustedPauseImage } from '../../lambdas/core/contract/trust.js';
import { aggregate } from '../../lambdas/core/incident/incidents.js';
import { readEvent } from '../../lambdas/core/incident/ingest.js';
import { nodeTrust } from '../../lambdas/core/policy/node-trust.js';
import { fixture, subscriptionEvent } from '../support/fixtures.js';

/** Issue 12: what a tenant controls (pod names, images, commands, log text) decides nothing. */
const config = { logGroupClusters: {}, accountScope: 'account' };
const NOW = Date.parse('2026-11-29T12:00:00Z');
const NODE = 'i-0a1b2c3d4e5f60718';
const ci = (message: string, envelope: Record<string, string> = { ec2_instance_id: NODE }) =>
  JSON.stringify({
    hostname: 'ip-10-0-12-34.eu-west-1.compute.internal',
    systemd_unit: 'containerd.service',
    ...envelope,
    message,
  });
/** The node's probe as the door reads it (lambdas/aws/door/node-commands.ts): its status and the configured image. */
const probe = (sandboxImage: string, present = 'fail') => {
  const c = outcomeOf(
    {
      status: 'Success',
      stdout: JSON.stringify({
        node: { sandboxImage },
        findings: [{ id: 'node.sandbox-image.present', status: present, summary: '', evidence: '' }],
      }),
    },
    { probe: true },
  );
  return { status: c.status, sandboxImage: c.facts?.sandboxImage };
};
const trustInput = {
  class: 'sandbox-image',
  cluster: 'prod-eu',
  node: { instanceId: NODE, clusterName: 'prod-eu' },
  findings: [
    { id: 'node.sandbox-image.present', status: 'fail' as const, summary: '', evidence: {}, remediation: null },
  ],
  trustedSandboxImages: [],
};

describe('finding 1: log text never chooses the image', () => {
  const attack = ci(
    'time="2026-11-29T10:00:01Z" level=error msg="RunPodSandbox for &PodSandboxMetadata{Name:web-1,Namespace:team-a,} failed" error="failed to create containerd task: exec: \\"sandbox image \\\\\\"evil.example.com/x/pause:1\\\\\\" not found\\": unknown"',
  );

  it('a tenant command quoting a sandbox image is not a sandbox-image incident', () => {
    const r = readEvent(subscriptionEvent([attack]), config, NOW);
    for (const o of r.occurrences) expect(o.class).not.toBe('sandbox-image');
  });

  it('the repair image is the node configuration the probe read, never the logged one', () => {
    const t = nodeTrust({
      ...trustInput,
      loggedImage: 'evil.example.com/x/pause:1',
      probe: probe('localhost/kubernetes/pause:latest'),
    });
    expect(t.sandboxImage).toBeUndefined();
    expect(t.repairRefusal).toMatch(/evil.example.com\/x\/pause:1 is not this node's sandbox image/);
    const ok = nodeTrust({
      ...trustInput,
      loggedImage: 'localhost/kubernetes/pause',
      probe: probe('localhost/kubernetes/pause'),
    });
    expect(ok.sandboxImage).toBe('localhost/kubernetes/pause:latest');
  });

  it('a configured image outside the allowlist is never restored', () => {
    const t = nodeTrust({ ...trustInput, probe: probe('evil.example.com/x/pause:1') });
    expect(t.sandboxImage).toBeUndefined();
    expect(t.repairRefusal).toMatch(/not trusted/);
    expect(
      nodeTrust({
        ...trustInput,
        probe: probe('evil.example.com/x/pause:1'),
        trustedSandboxImages: ['evil.example.com/x/pause'],
      }).sandboxImage,
    ).toBe('evil.example.com/x/pause:1');
  });

  it('allowlist: the EKS pause repository of each Region with its own account, localhost/kubernetes/pause, configured ones', () => {
    expect(isTrustedPauseImage('602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.10')).toBe(true);
    expect(isTrustedPauseImage('602401143452.dkr.ecr-fips.us-gov-west-1.amazonaws.com/eks/pause:3.10')).toBe(false);
    expect(isTrustedPauseImage('013241004608.dkr.ecr.us-gov-west-1.amazonaws.com/eks/pause:3.10')).toBe(true);
    expect(isTrustedPauseImage('877085696533.dkr.ecr.af-south-1.amazonaws.com/eks/pause:3.5')).toBe(true);
    expect(isTrustedPauseImage('918309763551.dkr.ecr.cn-north-1.amazonaws.com.cn/eks/pause:3.5')).toBe(true);
    expect(isTrustedPauseImage('918309763551.dkr.ecr.cn-north-1.amazonaws.com/eks/pause:3.5')).toBe(false);
    expect(isTrustedPauseImage('111122223333.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.10')).toBe(false);
    expect(isTrustedPauseImage('602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause-evil:3.10')).toBe(false);
    expect(isTrustedPauseImage('localhost/kubernetes/pause')).toBe(true);
    expect(isTrustedPauseImage('localhost/kubernetes/pause:latest;rm')).toBe(false);
    expect(isTrustedPauseImage('x.io/eks/pause:1')).toBe(false);
    expect(isTrustedPauseImage('mirror.corp/eks/pause:3.10', ['mirror.corp/eks/pause'])).toBe(true);
    expect(eksPauseRepository('me-south-1')).toBe('558608220178.dkr.ecr.me-south-1.amazonaws.com/eks/pause');
  });
});

describe('finding 2: log text never chooses the node', () => {
  const genuine =
    'E1129 10:00:01.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to get sandbox image \\"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5\\": failed to pull image: 401 Unauthorized" pod="team-a/i-0fedcba9876543210"';

  it('a pod named like an instance id in a record without ec2_instance_id targets no instance', () => {
    const r = readEvent(
      subscriptionEvent([JSON.stringify({ systemd_unit: 'kubelet.service', message: genuine })]),
      config,
      NOW,
    );
    expect(r.occurrences).toHaveLength(1);
    expect(r.occurrences[0].entities.instanceId).toBeUndefined();
    expect(r.occurrences[0].entities.pod).toBe('i-0fedcba9876543210');
    expect(aggregate(r.occurrences)[0]).toMatchObject({ scope: 'cluster', scopeValue: 'unknown-node' });
  });

  it('the envelope names the node when it has one', () => {
    const r = readEvent(subscriptionEvent([ci(genuine)]), config, NOW);
    expect(r.occurrences[0].entities.instanceId).toBe(NODE);
  });

  it('an instance tagged for another cluster is diagnosed only, with the reason', () => {
    const t = nodeTrust({
      ...trustInput,
      node: { instanceId: 'i-0fedcba9876543210', clusterName: 'other' },
      probe: probe('localhost/kubernetes/pause'),
    });
    expect(t.instanceId).toBeUndefined();
    expect(t.reasons.join()).toMatch(/tagged for cluster other, not prod-eu/);
    const none = nodeTrust({ ...trustInput, node: undefined });
    expect(none.reasons.join()).toMatch(/diagnose only: no node from the record envelope/);
  });
});

describe('finding 3: a tenant image named like pause is not the sandbox image', () => {
  it('x.io/eks/pause:1 failing to pull is a workload image incident, scoped to the image', () => {
    const line =
      'E1129 10:00:01.000001    3412 log.go:32] "Failed to pull image" err="rpc error: code = NotFound desc = failed to pull and unpack image \\"x.io/eks/pause:1\\": not found" image="x.io/eks/pause:1" pod="team-a/web-1"';
    const r = readEvent(subscriptionEvent([ci(line)]), config, NOW);
    expect(r.occurrences).toHaveLength(1);
    expect(r.occurrences[0].class).toBe('image-pull-failed');
    expect(r.occurrences[0].cause).toMatch(/not a trusted sandbox image/);
    expect(aggregate(r.occurrences)[0]).toMatchObject({ scope: 'image', scopeValue: 'x.io/eks/pause:1' });
  });

  it('a pause image that the probe finds present and pinned is not repaired (and spends no cap)', () => {
    const t = nodeTrust({
      ...trustInput,
      findings: [{ id: 'node.sandbox-image.present', status: 'pass', summary: '', evidence: {}, remediation: null }],
      probe: probe('localhost/kubernetes/pause', 'pass'),
    });
    expect(t.sandboxImage).toBeUndefined();
    expect(t.repairRefusal).toMatch(/present and pinned/);
  });
});

describe('findings 8 and 9: size caps and bad items isolated', () => {
  it('a 200 KB image reference becomes a capped entity and a short key', () => {
    const huge = `evil.example.com/${'a'.repeat(200_000)}:1`;
    const line = `E1129 10:00:01.000001    3412 log.go:32] "Failed to pull image" err="failed to pull and unpack image \\"${huge}\\": not found" pod="team-a/${'p'.repeat(20_000)}"`;
    const r = readEvent(subscriptionEvent([ci(line)]), config, NOW);
    expect(r.occurrences).toHaveLength(1);
    const [c] = aggregate(r.occurrences);
    for (const v of Object.values(c.entities)) expect(String(v).length).toBeLessThanOrEqual(256);
    expect(Buffer.byteLength(`INCIDENT#${c.key}`)).toBeLessThan(2048);
    expect(JSON.stringify(c).length).toBeLessThan(20_000);
  });

  it('one malformed log event costs only itself', () => {
    const good = ci('runtime: failed to create new OS thread (have 2 already; errno=11)');
    const batch = {
      messageType: 'DATA_MESSAGE',
      owner: '111122223333',
      logGroup: '/aws/containerinsights/prod-eu/dataplane',
      logStream: 's',
      subscriptionFilters: [],
      logEvents: [
        { id: '1', timestamp: NOW, message: good },
        { id: '2', timestamp: 1e308, message: good },
        { id: '3', timestamp: NOW, message: { not: 'a string' } },
        null,
        { id: '5', timestamp: NOW, message: good },
      ],
    };
    const r = readEvent({ awslogs: { data: gzipSync(JSON.stringify(batch)).toString('base64') } }, config, NOW);
    expect(r.stats).toMatchObject({ received: 5, classified: 2, rejected: 3 });
    expect(r.rejects.map((x) => x.reason).join('\n')).toMatch(/timestamp/);
  });

  it('a CloudTrail event with a non-string errorCode is a kept reject, not an exception', () => {
    const e = fixture<{ detail: Record<string, unknown> }>('events/detach-ecr-readonly.json');
    const bad = { ...e, detail: { ...e.detail, errorCode: { nested: true } } };
    const r = readEvent(bad, config, NOW);
    expect(r.stats).toMatchObject({ received: 1, rejected: 1 });
    expect(r.rejects[0].reason).toMatch(/detail.errorCode/);
  });

  it('a 200 MB gzip bomb is refused within the inflate limit (RSS grows far less than 200 MB)', () => {
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20), { level: 9 }).toString('base64');
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    const r = readEvent({ awslogs: { data: bomb } }, config, NOW);
    const grown = process.memoryUsage().rss - before;
    expect(r.stats.rejected).toBe(1);
    expect(r.rejects[0].reason).toMatch(/inflates beyond/);
    expect(grown).toBeLessThan(100 * 1024 * 1024);
  });
});
