import { describe, expect, it } from 'vitest';
import { corroborateWithPod } from '../../lambdas/core/incident/corroboration.js';
import { aggregate } from '../../lambdas/core/incident/incidents.js';
import { readEvent } from '../../lambdas/core/incident/ingest.js';
import {
  COMBINED_PREFIX,
  instanceIdOfProviderId,
  MAX_EVENT_MESSAGE,
  readKubeEvent,
} from '../../lambdas/core/incident/kube-events.js';
import { eventDrafts, REPORTING_CONTROLLER } from '../../lambdas/core/voices/cluster-events.js';
import { recordedCluster } from '../../local/kube-api-server.js';
import { subscriptionEvent } from '../support/fixtures.js';

type Obj = Record<string, unknown>;
const NOW = Date.parse('2026-11-30T10:05:00Z');
const ctx = { cluster: 'prod', now: NOW };
const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';

/** The recorded pause-image 401 event (seed:000, AWS re:Post) with the uid the API server gives it. */
function pauseEvent(over: Obj = {}): Obj {
  const [e] = recordedCluster().events['team-a/api-5d8f7c9b6-x2kq9'] as Obj[];
  return { ...e, metadata: { ...(e.metadata as Obj), uid: 'e-1', resourceVersion: '1001' }, ...over };
}

describe('Kubernetes Warning events as occurrences', () => {
  it('reads a FailedCreatePodSandBox event as the sandbox-image class the log path gives the same text', () => {
    const r = readKubeEvent(pauseEvent(), ctx);
    expect(r).toMatchObject({
      kind: 'occurrence',
      uid: 'e-1',
      repeats: 15,
      occurrence: {
        class: 'sandbox-image',
        cluster: 'prod',
        signal: 'kubernetes-events',
        at: Date.parse('2026-11-30T10:03:11Z'),
        entities: {
          pod: 'api-5d8f7c9b6-x2kq9',
          namespace: 'team-a',
          sandboxImage: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5',
        },
        factSources: { pod: 'event-involved-object', sandboxImage: 'event-message' },
        // Anyone who may create Events in team-a wrote it: tenant rank, its namespace's budget.
        rank: 'tenant',
        tenantNamespace: 'team-a',
      },
    });
    // The event's source.host / reportingInstance never become the node: the pod's binding will.
    if (r.kind === 'occurrence') expect(r.occurrence.entities.node).toBeUndefined();
  });

  it('keys an event and a log line about the same node and class into one incident', () => {
    const event = readKubeEvent(pauseEvent(), ctx);
    if (event.kind !== 'occurrence') throw new Error(event.kind);
    const line = JSON.stringify({
      hostname: NODE,
      ec2_instance_id: 'i-0123456789abcdef0',
      systemd_unit: 'kubelet.service',
      message: `E1130 10:00:11.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to get sandbox image \\"602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5\\": failed to pull image: 401 Unauthorized" pod="team-a/api-5d8f7c9b6-x2kq9"`,
    });
    const logged = readEvent(
      subscriptionEvent([line], { logGroup: '/aws/containerinsights/prod/dataplane' }),
      { logGroupClusters: {}, accountScope: 'account' },
      NOW,
    ).occurrences;
    expect(logged.map((o) => o.class)).toEqual(['sandbox-image']);
    // The reader corroborates it with the pod (its bound node) and adds the instance id from the Node object.
    const pod = recordedCluster().pods.find(
      (p) => (p as Obj & { metadata: Obj }).metadata.name === 'api-5d8f7c9b6-x2kq9',
    );
    const c = corroborateWithPod(event.occurrence, pod as never, undefined);
    if (!c.corroborated) throw new Error(c.why);
    const withInstance = { ...c.occurrence, entities: { ...c.occurrence.entities, instanceId: 'i-0123456789abcdef0' } };
    const incidents = aggregate([...logged, withInstance]);
    // One incident key; one candidate per rank (the event's tenant rank never counts as the line's node rank).
    expect(new Set(incidents.map((i) => i.key)).size).toBe(1);
    expect(incidents.map((i) => [i.rank, i.signals])).toEqual([
      ['node', ['dataplane-logs']],
      ['tenant', ['kubernetes-events']],
    ]);
  });

  it('never takes the pod or the node from the message: a pod of another namespace named in the text changes nothing', () => {
    const message = `${String(pauseEvent().message)} pod="kube-system/coredns-1" node ip-10-9-9-9.ec2.internal`;
    const r = readKubeEvent(pauseEvent({ message }), ctx);
    expect(r).toMatchObject({
      kind: 'occurrence',
      occurrence: { cluster: 'prod', entities: { pod: 'api-5d8f7c9b6-x2kq9', namespace: 'team-a' } },
    });
    if (r.kind === 'occurrence') expect(r.occurrence.entities.node).toBeUndefined();
  });

  it('rejects an event whose involvedObject is a pod of another namespace (the API server refuses such events)', () => {
    const e = pauseEvent();
    const r = readKubeEvent({ ...e, involvedObject: { ...(e.involvedObject as Obj), namespace: 'kube-system' } }, ctx);
    expect(r).toEqual({
      kind: 'rejected',
      reason: 'event in namespace team-a names pod kube-system/api-5d8f7c9b6-x2kq9 of another namespace',
    });
  });

  it('classifies a combined event (the correlator prefix) by what follows the prefix', () => {
    const r = readKubeEvent(pauseEvent({ message: `${COMBINED_PREFIX}${String(pauseEvent().message)}` }), ctx);
    expect(r).toMatchObject({ kind: 'occurrence', occurrence: { class: 'sandbox-image' } });
    if (r.kind === 'occurrence') expect(r.occurrence.evidence).not.toContain('combined from similar events');
  });

  it('reads a 1 MB message: classified from its start, kept short, counted as truncated', () => {
    const message = `${String(pauseEvent().message)} ${'x'.repeat(1024 * 1024)}`;
    const r = readKubeEvent(pauseEvent({ message }), ctx);
    expect(r).toMatchObject({ kind: 'occurrence', truncated: true, occurrence: { class: 'sandbox-image' } });
    if (r.kind === 'occurrence') expect(r.occurrence.evidence.length).toBeLessThanOrEqual(2000);
    expect(MAX_EVENT_MESSAGE).toBeLessThan(1024 * 1024);
  });

  it('takes a series count and its last observation (events.k8s.io series on a core/v1 event)', () => {
    const r = readKubeEvent(
      pauseEvent({ count: null, series: { count: 42, lastObservedTime: '2026-11-30T10:04:30.000000Z' } }),
      ctx,
    );
    expect(r).toMatchObject({
      kind: 'occurrence',
      repeats: 42,
      occurrence: { at: Date.parse('2026-11-30T10:04:30Z') },
    });
  });

  it('ignores Normal events, reasons kubelet does not report failures with, and unknown text; rejects broken objects', () => {
    expect(readKubeEvent(pauseEvent({ type: 'Normal' }), ctx)).toEqual({ kind: 'ignored', why: 'not-warning' });
    expect(readKubeEvent(pauseEvent({ reason: 'FailedScheduling' }), ctx)).toEqual({ kind: 'ignored', why: 'reason' });
    expect(readKubeEvent(pauseEvent({ message: 'Readiness probe failed: HTTP 503' }), ctx)).toEqual({
      kind: 'ignored',
      why: 'unknown',
    });
    expect(readKubeEvent({ metadata: 'nope' }, ctx)).toMatchObject({ kind: 'rejected' });
    expect(readKubeEvent(pauseEvent({ metadata: { namespace: 'team-a' } }), ctx)).toEqual({
      kind: 'rejected',
      reason: 'event has no metadata.uid',
    });
  });

  it("never reads pod-doctor's own write-back events as a failure, though they are Warnings quoting one", () => {
    // What the core/v1 API shows of pod-doctor's events.k8s.io write-back (the same objects; note → message).
    const quoted = String(pauseEvent().message);
    const drafts = eventDrafts({
      incidentId: 'prod/sandbox-image/i-0a1b2c3d4e5f60718',
      class: 'sandbox-image',
      cause: 'sandbox-image: the node cannot pull its pause image',
      evidence: [quoted],
      actions: ['repair-pause-image: failed'],
      links: [],
    });
    const warnings = drafts.filter((d) => d.type === 'Warning');
    expect(warnings.map((d) => d.reason)).toEqual(['Diagnosed', 'ActionFailed']);
    expect(warnings[0].note).toContain('failed to get sandbox image');
    for (const d of warnings) {
      const seen = pauseEvent({
        reason: d.reason,
        type: d.type,
        message: d.note,
        reportingComponent: REPORTING_CONTROLLER,
      });
      expect(readKubeEvent(seen, ctx)).toEqual({ kind: 'ignored', why: 'reason' });
    }
  });

  it('reads a node event (involvedObject kind Node) with the node from involvedObject', () => {
    const r = readKubeEvent(
      {
        metadata: { name: `${NODE}.1`, namespace: 'default', uid: 'n-1' },
        involvedObject: { kind: 'Node', name: NODE, uid: NODE },
        reason: 'FreeDiskSpaceFailed',
        message:
          'Failed to garbage collect required amount of images. Attempted to free 4205355417 bytes, but only found 0 bytes eligible to free. failed to remove image: no space left on device',
        type: 'Warning',
        source: { component: 'kubelet', host: NODE },
        count: 3,
      },
      ctx,
    );
    expect(r).toMatchObject({
      kind: 'occurrence',
      occurrence: { class: 'disk-full', entities: { node: NODE }, factSources: { node: 'event-involved-object' } },
    });
  });

  it('reads the instance id of an EC2 node from its providerID only', () => {
    expect(instanceIdOfProviderId('aws:///us-east-2a/i-0123456789abcdef0')).toBe('i-0123456789abcdef0');
    expect(instanceIdOfProviderId('aws:///us-east-2a/i-0123456789abcdef0/../x')).toBeUndefined();
    expect(instanceIdOfProviderId('kind://docker/kind/kind-control-plane')).toBeUndefined();
    expect(instanceIdOfProviderId(undefined)).toBeUndefined();
  });
});
