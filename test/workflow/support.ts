import { NODE_DNS, NODE_ID } from '../../local/account-snapshot.js';

import { recordedCluster } from '../../local/kube-api-server.js';
import { AL2023_PAUSE } from '../../local/local-node.js';
import type { RunResult } from '../../local/local-workflow.js';

export { AL2023_PAUSE };

export function incident(over: Record<string, unknown> = {}) {
  const cls = (over.class as string) ?? 'sandbox-image';
  return {
    incidentId: `0f3a9c2e5b7d1a4c-${Math.floor(Date.parse('2026-11-29T10:00:00Z') / 1000)}`,
    incidentKey: `prod-eu|node:${NODE_ID}|${cls}`,
    class: cls,
    kind: 'failure',
    cluster: 'prod-eu',
    scope: 'node',
    scopeValue: NODE_ID,
    cause: 'the sandbox (pause) image was deleted from the node and cannot be pulled from anywhere',
    entities: { instanceId: NODE_ID, node: 'ip-10-0-12-34.eu-west-1.compute.internal', sandboxImage: AL2023_PAUSE },
    firstSeen: '2026-11-29T10:00:00.000Z',
    samples: [
      'E1129 10:00:01.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = NotFound desc = failed to get sandbox image "localhost/kubernetes/pause": failed to pull image "localhost/kubernetes/pause": not found" pod="default/web-7d9c8-x2k4q"',
    ],
    pods: ['default/web-7d9c8-x2k4q'],
    signals: ['dataplane-logs'],
    ...over,
  };
}

/**
 * The pods of the recorded cluster (`namespace/name`): an incident that names them when it opens has its
 * verification watch them (verification judges only the pods the incident named).
 */
export function recordedPods(): string[] {
  return recordedCluster().pods.map((p) => {
    const m = (p as { metadata: { namespace: string; name: string } }).metadata;
    return `${m.namespace}/${m.name}`;
  });
}

/** A PID-exhaustion incident on the recorded node (its probe decides whether a restart heals it). */
export const pidIncident = () =>
  incident({
    class: 'pid-exhaustion',
    incidentKey: `prod-eu|node:${NODE_ID}|pid-exhaustion`,
    cause: 'the node ran out of PIDs/threads',
    entities: { instanceId: NODE_ID, node: NODE_DNS },
  });

/** The incident summary a run ended with (empty when it never got there). */
export const summaryOf = (r: RunResult) =>
  (r.output.summary ?? {}) as { subject: string; message: string; outcome: string };

/** The SSM documents a run sent, in order. */
export const docsRun = (r: RunResult) => r.commands.map((c) => c.document);
