/**
 * Latency model: first log line → verified repair, walked through the synthesized state machine
 * (ASL). The path is the set of states an execution of that very definition entered (the local
 * runtime runs it); the model walks the definition from StartAt, so every state the definition puts
 * on the path costs its time: Wait states their `Seconds`, Tasks their service's latency, Parallel
 * states their slowest branch, poll loops as many rounds as the command needs. Component latencies
 * are documented figures or, where no figure is published, assumptions within what the cited page
 * states; each carries its source.
 */

export interface Component {
  /** Median and 90th percentile, seconds (a log-normal through both), or a uniform range. */
  readonly p50?: number;
  readonly p90?: number;
  readonly uniform?: readonly [number, number];
  /** What the figures measure. @default 's' (seconds) */
  readonly unit?: 's' | 'share';
  /** `documented`: the figure is the source's; `assumed`: the source documents the mechanism only. */
  readonly kind: 'documented' | 'assumed';
  readonly source: string;
  readonly note: string;
}

export type ComponentId =
  | 'logShipping'
  | 'subscriptionDelivery'
  | 'lambdaColdInit'
  | 'lambdaHandler'
  | 'ingestHandler'
  | 'stateTransition'
  | 'taskOverhead'
  | 'ssmDelivery'
  | 'statusEvent'
  | 'probeScript'
  | 'repairScript'
  | 'kubeletRetryPeriod'
  | 'kubeletRetryPhase'
  | 'podStart'
  | 'apiCall';

export type Components = Readonly<Record<ComponentId, Component>>;

export const COMPONENTS: Components = {
  // Container Insights ships node logs with Fluent Bit, `Flush 5` in its [SERVICE] section: a line
  // waits 0-5 s in the buffer before PutLogEvents.
  // https://github.com/aws-observability/aws-otel-helm-charts/blob/317dab9ac386ae2557763a97185d58fd18bd2454/charts/adot-exporter-for-eks-on-ec2/templates/aws-for-fluent-bit/configmap.yaml
  logShipping: {
    uniform: [0.1, 5.1],
    kind: 'documented',
    source:
      'https://github.com/aws-observability/aws-otel-helm-charts/blob/317dab9ac386ae2557763a97185d58fd18bd2454/charts/adot-exporter-for-eks-on-ec2/templates/aws-for-fluent-bit/configmap.yaml',
    note: 'Fluent Bit Flush 5 (buffer 0-5 s) + PutLogEvents',
  },
  // Subscription filters deliver "a real-time stream of log events"; to Lambda within seconds.
  // https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/Subscriptions.html
  // https://www.mindmeshacademy.com/certifications/aws/aws-certified-devops-engineer-professional/study-guide/3-2-1-7-creating-cloudwatch-metrics-from-log-events-metric-filters
  subscriptionDelivery: {
    p50: 1.5,
    p90: 4,
    kind: 'assumed',
    source: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/Subscriptions.html',
    note: 'real-time delivery to Lambda, "seconds"',
  },
  // Cold starts "vary from under 100 ms to over 1 second"; Node.js typically 100-300 ms.
  // https://aws.amazon.com/blogs/compute/operating-lambda-performance-optimization-part-1/
  // https://cloudtoolstack.com/blog/aws-lambda-performance-optimization
  lambdaColdInit: {
    p50: 0.3,
    p90: 1,
    kind: 'documented',
    source: 'https://aws.amazon.com/blogs/compute/operating-lambda-performance-optimization-part-1/',
    note: 'first invocation of each function (incidents are rare: functions are idle)',
  },
  // A check handler makes a few AWS API calls in the region (bench/workflow.ts assumes 300 ms too).
  lambdaHandler: {
    p50: 0.3,
    p90: 0.8,
    kind: 'assumed',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html',
    note: 'handler run: a few regional AWS API calls',
  },
  ingestHandler: {
    p50: 0.25,
    p90: 0.6,
    kind: 'assumed',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html',
    note: 'decode, classify, open-or-join (DynamoDB), StartExecution',
  },
  // Standard workflows record every transition; no latency figure is published.
  stateTransition: {
    p50: 0.03,
    p90: 0.1,
    kind: 'assumed',
    source: 'https://docs.aws.amazon.com/step-functions/latest/dg/concepts-standard-vs-express.html',
    note: 'per state entered (Standard workflow)',
  },
  taskOverhead: {
    p50: 0.05,
    p90: 0.15,
    kind: 'assumed',
    source: 'https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html',
    note: 'per Task: the service integration call',
  },
  // The agent long-polls its message service (ec2messages GetMessages) for commands.
  // https://docs.aws.amazon.com/systems-manager/latest/userguide/ssm-agent.html
  ssmDelivery: {
    p50: 1,
    p90: 3,
    kind: 'assumed',
    source: 'https://docs.aws.amazon.com/systems-manager/latest/userguide/ssm-agent.html',
    note: 'SendCommand → the agent runs the document (long poll)',
  },
  // Run Command emits "EC2 Command Invocation Status-change Notification" on the default bus when an
  // invocation's status changes (delivery type: best effort); EventBridge invokes the rule's target.
  // No latency figure is published for either; "near real time" / typically well under a second.
  // https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-ssm.html
  // https://docs.aws.amazon.com/systems-manager/latest/userguide/monitoring-systems-manager-event-examples.html
  statusEvent: {
    p50: 0.5,
    p90: 1.5,
    kind: 'assumed',
    source: 'https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-ssm.html',
    note: 'command done → status-change event → EventBridge invokes the command-wait function',
  },
  probeScript: {
    p50: 2,
    p90: 4,
    kind: 'assumed',
    source: 'https://github.com/containerd/containerd/blob/main/docs/getting-started.md',
    note: 'ssm/ node probe: crictl / ctr queries on the node',
  },
  repairScript: {
    p50: 3,
    p90: 8,
    kind: 'assumed',
    source: 'https://github.com/containerd/containerd/blob/main/docs/getting-started.md',
    note: 'pause image re-import (ctr import) or pull with an ECR token, then pin',
  },
  // After a failed sync (FailedCreatePodSandBox) kubelet re-queues the pod after backOffPeriod
  // (10 s, pkg/kubelet/kubelet.go) jittered by workerBackOffPeriodJitterFactor 0.5 (pod_workers.go):
  // a stuck pod retries every 10-15 s; the repair lands at a random point of that cycle.
  // https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/pod_workers.go
  kubeletRetryPeriod: {
    uniform: [10, 15],
    kind: 'documented',
    source: 'https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/pod_workers.go',
    note: 'pod worker back-off after a sync error: 10 s × (1 + 0.5 jitter)',
  },
  kubeletRetryPhase: {
    uniform: [0, 1],
    unit: 'share',
    kind: 'documented',
    source: 'https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/pod_workers.go',
    note: 'share of the retry period still to wait when the repair lands (uniform)',
  },
  // Pod startup SLO: creation → containers started and observed via watch, p99 ≤ 5 s (no image pulls).
  // https://docs.aws.amazon.com/eks/latest/best-practices/kubernetes_upstream_slos.html
  podStart: {
    p50: 1.5,
    p90: 3.5,
    kind: 'documented',
    source: 'https://docs.aws.amazon.com/eks/latest/best-practices/kubernetes_upstream_slos.html',
    note: 'sandbox + containers started, observed via watch (SLO p99 ≤ 5 s)',
  },
  // API request latency SLO: single-object calls p99 ≤ 1 s.
  apiCall: {
    p50: 0.05,
    p90: 0.2,
    kind: 'documented',
    source: 'https://docs.aws.amazon.com/eks/latest/best-practices/kubernetes_upstream_slos.html',
    note: 'one Kubernetes API call (SLO p99 ≤ 1 s)',
  },
};

/** Draws one value of a component; `u` is a uniform draw in [0, 1). */
export type Sampler = (id: ComponentId) => number;

const Z90 = 1.2815515655446004;

/** Inverse of the standard normal CDF (Acklam's rational approximation). */
function probit(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const q = Math.min(Math.max(p, 1e-9), 1 - 1e-9);
  if (q < 0.02425 || q > 1 - 0.02425) {
    const r = Math.sqrt(-2 * Math.log(q < 0.5 ? q : 1 - q));
    const x =
      (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
      ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
    return q < 0.5 ? x : -x;
  }
  const r = (q - 0.5) ** 2;
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * (q - 0.5)) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  );
}

/** A component's value at quantile `u` (u = 0.5: its median). */
export function quantile(c: Component, u: number): number {
  if (c.uniform) return c.uniform[0] + u * (c.uniform[1] - c.uniform[0]);
  const p50 = c.p50 ?? 0;
  const sigma = (Math.log(c.p90 ?? p50) - Math.log(p50)) / Z90;
  return p50 * Math.exp(sigma * probit(u));
}

/** Seeded PRNG (mulberry32): the bench prints the same figures on every run. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const randomSampler =
  (components: Components, random: () => number): Sampler =>
  (id) =>
    quantile(components[id], random());
export const medianSampler =
  (components: Components): Sampler =>
  (id) =>
    quantile(components[id], 0.5);
