import type { FailureClass } from '../../core/contract/failure-classes.js';
import { type Finding, finding, runCheck } from '../../core/contract/findings.js';
import { dominantClass, nodeHostAccess, type StuckPod } from '../../core/detect/stuck-pods.js';
import { capabilitiesLine, nodeCapabilities } from '../../core/policy/node-access.js';
import { ROLLOUT_CLASSES } from '../../core/remedy/rollout.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';
import { rolloutFinding } from './rollout-finding.js';

/** Finding ids of the Kubernetes inspection (a contract, like the account finding ids). */
export const KUBERNETES_FINDING_IDS = [
  'k8s.stuck-pods',
  'k8s.node',
  'k8s.aws-node',
  'k8s.vpc-cni-config',
  'k8s.windows-ipam',
  'k8s.rollout',
] as const;

export interface InspectInput {
  /** Kubernetes node name (private DNS name) of the incident, when it has one. */
  readonly nodeName?: string;
  /** Image of a pull incident: only pods waiting on it count. */
  readonly image?: string;
  readonly failureClass: FailureClass;
}

/** Most pods listed in evidence (the rest are counted). */
const MAX_PODS = 20;
/** aws-node settings that explain IP, prefix and security-group-for-pods behaviour. */
const CNI_SETTINGS = [
  'ENABLE_PREFIX_DELEGATION',
  'WARM_ENI_TARGET',
  'WARM_IP_TARGET',
  'WARM_PREFIX_TARGET',
  'MINIMUM_IP_TARGET',
  'ENABLE_POD_ENI',
  'POD_SECURITY_GROUP_ENFORCING_MODE',
  'DISABLE_TCP_EARLY_DEMUX',
  'AWS_VPC_K8S_CNI_LOG_FILE',
] as const;
const CNI_CLASSES: readonly FailureClass[] = [
  'ip-exhaustion',
  'cidr-fragmentation',
  'ipamd-unavailable',
  'cni-permissions',
  'cni-failure',
  'windows-ipam',
  'branch-eni',
];

/**
 * What the cluster shows about an incident: the stuck pods and the classes their events support,
 * the node (Auto Mode / Bottlerocket: no SSM on the host), aws-node on the node, and the VPC CNI
 * settings. Each check that cannot run becomes an `error` finding (never a pass).
 */
export interface Inspection {
  readonly findings: Finding[];
  /** The stuck pods of the incident's scope (at most 50), for verification by their start. */
  readonly stuckPods: { namespace: string; name: string; uid?: string }[];
}

export async function inspectCluster(api: ClusterApi, input: InspectInput): Promise<Inspection> {
  const stuck: StuckPod[] = [];
  const checks: Promise<Finding[]>[] = [runCheck('k8s.stuck-pods', () => stuckPodsFinding(api, input, stuck))];
  if (input.nodeName) checks.push(runCheck('k8s.node', () => nodeFinding(api, input.nodeName ?? '')));
  if (CNI_CLASSES.includes(input.failureClass)) {
    if (input.nodeName) checks.push(runCheck('k8s.aws-node', () => awsNodeFinding(api, input.nodeName ?? '')));
    checks.push(runCheck('k8s.vpc-cni-config', () => cniConfigFindings(api, input.failureClass)));
  }
  const findings = (await Promise.all(checks)).flat();
  // After the stuck pods are known: their owner chain names the Deployment whose rollout may be the cause.
  if ((ROLLOUT_CLASSES as readonly string[]).includes(input.failureClass) && stuck.length)
    findings.push(...(await runCheck('k8s.rollout', () => rolloutFinding(api, stuck, input.failureClass))));
  const stuckPods = stuck
    .slice(0, 50)
    .map((p) => ({ namespace: p.namespace, name: p.name, ...(p.uid ? { uid: p.uid } : {}) }));
  return { findings, stuckPods };
}

async function stuckPodsFinding(api: ClusterApi, input: InspectInput, out: StuckPod[]): Promise<Finding> {
  const all = await api.stuckPods(input.nodeName);
  const pods = input.image ? all.filter((p) => p.images.includes(input.image ?? '')) : all;
  out.push(...pods);
  if (pods.length === 0) {
    return finding('k8s.stuck-pods', 'pass', 'no pod is stuck any more', { scope: scopeOf(input) });
  }
  const sample = pods.slice(0, 5);
  const events = (await Promise.all(sample.map((p) => api.podEvents(p.namespace, p.name)))).flat();
  const eventClass = dominantClass(events);
  const agrees = eventClass === input.failureClass || eventClass === 'unknown';
  return finding(
    'k8s.stuck-pods',
    'fail',
    `${pods.length} pod(s) stuck (${summarizeReasons(pods)}); their events point to ${eventClass}`,
    {
      scope: scopeOf(input),
      count: pods.length,
      pods: pods.slice(0, MAX_PODS).map((p) => ({
        pod: `${p.namespace}/${p.name}`,
        uid: p.uid,
        reason: p.reason,
        node: p.nodeName,
        controller: p.controller ?? null,
      })),
      eventClass,
      agreesWithIncident: agrees,
      events: events
        .slice(0, 10)
        .map((e) => ({ reason: e.reason, class: e.class, count: e.count, message: e.message.slice(0, 300) })),
    },
    agrees ? null : `the pods' events point to ${eventClass}, not ${input.failureClass}: check both`,
  );
}

function scopeOf(input: InspectInput): string {
  return input.nodeName ? `node ${input.nodeName}` : input.image ? `image ${input.image}` : 'cluster';
}

function summarizeReasons(pods: readonly StuckPod[]): string {
  const counts = new Map<string, number>();
  for (const p of pods) counts.set(p.reason, (counts.get(p.reason) ?? 0) + 1);
  return [...counts.entries()].map(([r, n]) => `${n} ${r}`).join(', ');
}

async function nodeFinding(api: ClusterApi, nodeName: string): Promise<Finding> {
  const node = await api.node(nodeName);
  if (!node)
    return finding('k8s.node', 'warn', `node ${nodeName} is not in the cluster (deleted or replaced)`, { nodeName });
  const access = nodeHostAccess(node);
  const info = node.status?.nodeInfo ?? {};
  const capabilities = nodeCapabilities(access);
  const evidence = {
    nodeName,
    hostAccess: access,
    osImage: info.osImage,
    runtime: info.containerRuntimeVersion,
    kubelet: info.kubeletVersion,
    cordoned: node.spec?.unschedulable === true,
    can: capabilities.can,
    cannot: capabilities.cannot,
    logs: capabilities.logs,
  };
  if (access === 'ssm') return finding('k8s.node', 'pass', `node runs ${info.osImage ?? 'an unknown OS'}`, evidence);
  const what = access === 'eks-auto-mode' ? 'EKS Auto Mode node' : 'Bottlerocket node';
  return finding('k8s.node', 'warn', `${what}: ${capabilitiesLine(capabilities)}`, evidence, capabilities.byHand);
}

async function awsNodeFinding(api: ClusterApi, nodeName: string): Promise<Finding> {
  const [pod] = await api.awsNodePods(nodeName);
  if (!pod)
    return finding(
      'k8s.aws-node',
      'fail',
      `no aws-node pod on ${nodeName}`,
      { nodeName },
      'check the aws-node DaemonSet (node selector, tolerations)',
    );
  const container = pod.status?.containerStatuses?.find((c) => c.name === 'aws-node');
  const evidence = {
    pod: `kube-system/${pod.metadata?.name}`,
    ready: container?.ready ?? false,
    restarts: container?.restartCount ?? 0,
  };
  return container?.ready
    ? finding('k8s.aws-node', 'pass', `aws-node on ${nodeName} is ready`, evidence)
    : finding(
        'k8s.aws-node',
        'fail',
        `aws-node on ${nodeName} is not ready (${evidence.restarts} restarts)`,
        evidence,
        'restart the aws-node pod on this node; check its logs for ipamd errors',
      );
}

interface DaemonSetShape {
  spec?: { template?: { spec?: { containers?: { name?: string; env?: { name?: string; value?: string }[] }[] } } };
}

async function cniConfigFindings(api: ClusterApi, failureClass: FailureClass): Promise<Finding[]> {
  const ds = (await api.awsNodeDaemonSet()) as DaemonSetShape;
  const env = ds.spec?.template?.spec?.containers?.find((c) => c.name === 'aws-node')?.env ?? [];
  const settings = Object.fromEntries(CNI_SETTINGS.map((k) => [k, env.find((e) => e.name === k)?.value ?? null]));
  const out: Finding[] = [];
  const demuxRisk =
    settings.POD_SECURITY_GROUP_ENFORCING_MODE === 'strict' && settings.DISABLE_TCP_EARLY_DEMUX !== 'true';
  const logsShipped = settings.AWS_VPC_K8S_CNI_LOG_FILE === 'stdout';
  out.push(
    finding(
      'k8s.vpc-cni-config',
      demuxRisk || !logsShipped ? 'warn' : 'pass',
      [
        demuxRisk
          ? 'security groups for pods in strict mode without DISABLE_TCP_EARLY_DEMUX=true (kubelet probes fail)'
          : '',
        logsShipped ? '' : 'ipamd logs go to a host file: CloudWatch never sees them',
      ]
        .filter(Boolean)
        .join('; ') || 'VPC CNI settings read',
      settings,
      logsShipped
        ? null
        : 'set AWS_VPC_K8S_CNI_LOG_FILE=stdout on aws-node so ipamd lines reach the dataplane log group',
    ),
  );
  if (failureClass === 'windows-ipam') {
    const cm = await api.vpcCniConfigMap();
    const enabled = cm?.['enable-windows-ipam'] === 'true';
    out.push(
      finding(
        'k8s.windows-ipam',
        enabled ? 'pass' : 'fail',
        enabled
          ? 'enable-windows-ipam is true'
          : 'enable-windows-ipam is not true in ConfigMap kube-system/amazon-vpc-cni',
        { configMap: cm ?? null },
        enabled ? null : 'set enable-windows-ipam: "true" in ConfigMap kube-system/amazon-vpc-cni',
      ),
    );
  }
  return out;
}
