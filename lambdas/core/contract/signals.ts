/**
 * The signals pod-doctor detects from: ids are a contract (workflow input, summaries, the demo's
 * `--json`, metric dimensions, `preflight --json`). Add new ones, never rename.
 *  - `kubernetes-events`: Warning events read from each cluster's API (every cluster has them);
 *  - `dataplane-logs`: node journal lines (Container Insights `dataplane` / `host`, user-named groups);
 *  - `application-logs`: container stdout (`/aws/containerinsights/<cluster>/application`: aws-node, ipamd);
 *  - `cloudtrail`: EventBridge "AWS API Call via CloudTrail" events;
 *  - `sweep`: the scheduled list of stuck pods (the safety net when every stream missed).
 */
export const SIGNALS = ['kubernetes-events', 'dataplane-logs', 'application-logs', 'cloudtrail', 'sweep'] as const;

export type Signal = (typeof SIGNALS)[number];

const APPLICATION_GROUP = /\/application$/;

/**
 * The signal a CloudWatch Logs group carries: Container Insights' `application` group (and any group
 * whose name ends so) holds container stdout; every other subscribed group holds node lines.
 */
export function logGroupSignal(logGroup: string): Signal {
  return APPLICATION_GROUP.test(logGroup) ? 'application-logs' : 'dataplane-logs';
}

/** Signals in contract order, each once. */
export function orderSignals(signals: Iterable<string>): Signal[] {
  const set = new Set(signals);
  return SIGNALS.filter((s) => set.has(s));
}

/** The Container Insights log group of node (kubelet, containerd) lines. */
export const dataplaneLogGroup = (cluster: string) => `/aws/containerinsights/${cluster}/dataplane`;

/**
 * The log groups of container stdout (aws-node, ipamd): Fluent Bit's, then the OpenTelemetry mode's
 * (`/aws/otel/containerinsights/<cluster>/…`, see CI_LOG_GROUP in ingest.ts).
 */
export const applicationLogGroups = (cluster: string) => [
  `/aws/containerinsights/${cluster}/application`,
  `/aws/otel/containerinsights/${cluster}/application`,
];
