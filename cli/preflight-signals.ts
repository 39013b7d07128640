import {
  applicationSignal,
  dataplaneSignal,
  guardedReading,
  trailSignal,
} from '../lambdas/aws/ingest/signal-readers.js';
import { CoreV1Api } from '../lambdas/aws/readers/kubernetes/client.js';
import type { ClusterApi } from '../lambdas/aws/readers/kubernetes/cluster-api.js';
import { WARNING_SELECTOR } from '../lambdas/core/incident/kube-events.js';
import type { SignalReading } from '../lambdas/core/incident/signal-health.js';
import type { PreflightClients } from './preflight-checks.js';

/** What the signals section needs beyond the preflight clients: the cluster's API with your credentials. */
export interface SignalClients extends Pick<PreflightClients, 'logs' | 'cloudtrail'> {
  /** The cluster's Kubernetes API, authenticated with the credentials preflight runs with. */
  readonly kubernetes: (cluster: string) => Promise<ClusterApi>;
}

/**
 * `kubernetes-events` before pod-doctor is deployed: can Warning events be listed with your
 * credentials? pod-doctor's own reader gets list and watch on events from its access entry and
 * k8s/pod-doctor-rbac.yaml at deploy; a refusal here says only that these credentials cannot.
 */
async function eventsSignal(c: SignalClients, cluster: string): Promise<SignalReading> {
  const signal = 'kubernetes-events';
  try {
    const api = await c.kubernetes(cluster);
    const r = await api.listPaged('list events', (kc) =>
      kc.makeApiClient(CoreV1Api).listEventForAllNamespaces({ fieldSelector: WARNING_SELECTOR, limit: 1 }),
    );
    return {
      signal,
      status: 'ok',
      detail: `Warning events readable (resourceVersion ${r.resourceVersion ?? '?'}); pod-doctor's reader watches them once deployed`,
    };
  } catch (e) {
    return {
      signal,
      status: 'unknown',
      detail:
        `events not readable with these credentials (${(e as Error).name}: ${String((e as Error).message).split('\n')[0]}); pod-doctor's reader gets list and watch from its access entry and k8s/pod-doctor-rbac.yaml`.slice(
          0,
          400,
        ),
    };
  }
}

/** Each signal of one cluster, read-only, in contract order. */
export async function preflightSignals(
  c: SignalClients,
  o: { cluster: string; region: string; now?: Date },
): Promise<SignalReading[]> {
  const now = (o.now ?? new Date()).getTime();
  return [
    await eventsSignal(c, o.cluster),
    await guardedReading('dataplane-logs', () => dataplaneSignal(c.logs, o.cluster, now)),
    await guardedReading('application-logs', () => applicationSignal(c.logs, o.cluster, now)),
    await guardedReading('cloudtrail', () => trailSignal(c.cloudtrail, o.region)),
  ];
}
