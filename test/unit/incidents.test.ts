import { describe, expect, it } from 'vitest';
import { aggregate, incidentId, incidentScope, type Occurrence } from '../../lambdas/core/incident/incidents.js';

const base: Occurrence = {
  class: 'sandbox-image',
  kind: 'failure',
  cause: 'pause gone',
  signature: 'sandbox.auth',
  cluster: 'prod-eu',
  entities: {
    instanceId: 'i-0a',
    pod: 'web-1',
    namespace: 'default',
    image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5',
  },
  at: 1_000,
  evidence: 'line',
  signal: 'dataplane-logs',
};

describe('incident aggregation', () => {
  it('folds a storm of identical lines into one incident with count and first/last seen', () => {
    const storm = Array.from({ length: 5000 }, (_, i) => ({ ...base, at: 1_000 + i }));
    const [c, ...rest] = aggregate(storm);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      count: 5000,
      firstSeen: 1_000,
      lastSeen: 5_999,
      scope: 'node',
      scopeValue: 'i-0a',
      samples: ['line'],
    });
  });

  it('names every signal an incident came from, once each and in contract order', () => {
    // One rank (here: node, as the sweep's and the line's are; an event corroborated to node rank).
    const [c] = aggregate([
      { ...base, signal: 'sweep' },
      base,
      { ...base, signal: 'kubernetes-events', rank: 'node' },
      { ...base, signal: 'kubernetes-events', rank: 'node' },
    ]);
    expect(c.signals).toEqual(['kubernetes-events', 'dataplane-logs', 'sweep']);
  });

  it("folds each rank apart: a tenant flood of one key never counts as (or pushes out) the node's candidate", () => {
    const tenant = {
      ...base,
      signal: 'kubernetes-events' as const,
      rank: 'tenant' as const,
      tenantNamespace: 'attacker',
    };
    const out = aggregate([base, ...Array.from({ length: 50 }, () => tenant)]);
    expect(out.map((x) => [x.key, x.rank, x.count, x.tenantNamespace])).toEqual([
      [out[0].key, 'node', 1, undefined],
      [out[0].key, 'tenant', 50, 'attacker'],
    ]);
  });

  it('keeps one incident per node for node classes, and lists the pods', () => {
    const out = aggregate([
      base,
      { ...base, entities: { ...base.entities, pod: 'web-2' } },
      { ...base, entities: { ...base.entities, instanceId: 'i-0b' } },
    ]);
    expect(out.map((c) => c.scopeValue)).toEqual(['i-0a', 'i-0b']);
    expect(out[0].pods).toEqual(['default/web-1', 'default/web-2']);
  });

  it('keys pull failures by image, registry failures by registry host, auth by repository', () => {
    expect(incidentScope('image-not-found', { image: 'nginx:latestttt' })).toEqual({
      scope: 'image',
      value: 'nginx:latestttt',
    });
    expect(incidentScope('registry-unreachable', { image: 'a.b/c:1', registryHost: 'a.b' })).toEqual({
      scope: 'image',
      value: 'a.b',
    });
    expect(incidentScope('registry-auth', { image: '1.dkr.ecr.x.amazonaws.com/team/app:1.4.2' })).toEqual({
      scope: 'image',
      value: '1.dkr.ecr.x.amazonaws.com/team/app',
    });
  });

  it('keys capacity classes by subnet, falling back to the node until the subnet is known', () => {
    expect(incidentScope('cidr-fragmentation', { subnetId: 'subnet-1', instanceId: 'i-1' })).toEqual({
      scope: 'subnet',
      value: 'subnet-1',
    });
    expect(incidentScope('ip-exhaustion', { node: 'ip-10-0-0-1.ec2.internal' })).toEqual({
      scope: 'node',
      value: 'ip-10-0-0-1.ec2.internal',
    });
  });

  it('bounds samples and pods', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({
      ...base,
      evidence: `line ${i}`,
      entities: { ...base.entities, pod: `p-${i}` },
    }));
    const [c] = aggregate(many);
    expect(c.samples).toHaveLength(5);
    expect(c.pods).toHaveLength(20);
  });

  it('gives an incident a stable, execution-name-safe id', () => {
    const id = incidentId('prod-eu|node:i-0a|sandbox-image', 1_700_000_000_123);
    expect(id).toBe(incidentId('prod-eu|node:i-0a|sandbox-image', 1_700_000_000_999));
    expect(id).toMatch(/^[0-9a-f]{16}-1700000000$/);
  });
});
