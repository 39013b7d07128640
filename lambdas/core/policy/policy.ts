import type { ClassMode, FailureClass } from '../contract/failure-classes.js';
import type { Finding } from '../contract/findings.js';

/** Risk tiers: what an action can break. */
export type RiskTier = 'in-place' | 'disruptive' | 'account' | 'cluster';
/** What happens to one planned action. */
export type Disposition = 'auto' | 'approve' | 'recommend' | 'blocked';

/** The actions the policy plans (ids are a contract: configuration, summaries, tests). */
export const PLANNED_ACTION_IDS = [
  'repair-pause-image',
  'collect-logs',
  'restart-runtime',
  'attach-managed-policy',
  'add-sg-rule',
  'create-cidr-reservation',
  'create-pull-through-cache',
  'restart-aws-node',
  'enable-windows-ipam',
  'use-secondary-ips',
] as const;

export interface PlannedAction {
  readonly id: (typeof PLANNED_ACTION_IDS)[number];
  readonly tier: RiskTier;
  readonly description: string;
  /** Node actions name their SSM document (NODE_COMMANDS key) and parameters. */
  readonly document?: 'repairPauseImage' | 'collectLogs' | 'restartRuntime';
  readonly parameters?: Readonly<Record<string, string>>;
  readonly disposition: Disposition;
  /** Why this disposition (blocked / downgraded). */
  readonly reason: string;
}

/**
 * Default disposition per tier: in-place repairs run, disruptive ones ask, account and cluster changes
 * are recommended (their remedy plan, core/remedy/plan.ts, decides when they run).
 */
export const TIER_DEFAULT: Readonly<Record<RiskTier, Disposition>> = {
  'in-place': 'auto',
  disruptive: 'approve',
  account: 'recommend',
  cluster: 'recommend',
};

export interface PolicyLimits {
  readonly maxNodeActionsPerClusterPerHour: number;
  readonly maxNodeGroupShareAffected: number;
  readonly nodeCooldownMinutes: number;
}

export interface PolicyInput {
  readonly class: FailureClass;
  readonly mode: ClassMode;
  readonly killSwitch: boolean;
  readonly clusterOptedIn: boolean;
  /** Instance id of the node, when the incident is about one. */
  readonly instanceId?: string;
  /**
   * The node's configured sandbox image as its probe read it, already checked against the trusted
   * pause repositories; without it there is no pause repair.
   */
  readonly sandboxImage?: string;
  /** Why there is no trusted sandbox image to restore (blocks the pause repair). */
  readonly repairRefusal?: string;
  readonly findings: readonly Finding[];
  readonly limits: PolicyLimits;
  /** Node actions pod-doctor started in this cluster in the last hour. */
  readonly nodeActionsLastHour: number;
  /** When pod-doctor last acted on this node for this class (epoch ms). */
  readonly lastNodeActionAt?: number;
  /** Nodes of the node group with an open incident of this class, and the node group size. */
  readonly affectedNodes: number;
  readonly nodeGroupSize: number;
  readonly now: number;
}

export type Decision = 'act' | 'approve' | 'recommend' | 'blocked';

export interface Plan {
  readonly decision: Decision;
  readonly actions: readonly PlannedAction[];
  /** The node action the workflow runs (first auto or approval-pending node action), if any. */
  readonly nodeAction?: PlannedAction;
  /**
   * The node action that follows a successful `nodeAction` (auto or approval-gated), if any: PID
   * exhaustion collects logs first, then asks to restart the runtime.
   */
  readonly followUp?: PlannedAction;
  readonly reasons: readonly string[];
  /** Next steps for a human, from failing findings and recommended actions. */
  readonly recommendations: readonly string[];
}

type Candidate = Omit<PlannedAction, 'disposition' | 'reason'>;

/** What a class's candidate actions depend on: the node (when resolved), its sandbox image, the failing checks. */
type CandidateInput = Pick<PolicyInput, 'class' | 'instanceId' | 'sandboxImage' | 'findings'>;

const failing = (findings: readonly Finding[], id: string) => findings.some((f) => f.id === id && f.status === 'fail');

/** The subnet has no free aligned /28 at all: a prefix reservation cannot help. */
const noFreePrefixBlock = (findings: readonly Finding[]) =>
  findings.some((f) => f.id === 'subnet.free-prefix-blocks' && f.status === 'fail' && f.evidence.freeBlocks === 0);

const COLLECT_LOGS: Candidate = {
  id: 'collect-logs',
  tier: 'in-place',
  description: 'collect a node log bundle into the evidence bucket',
  document: 'collectLogs',
};
const RESTART_RUNTIME: Candidate = {
  id: 'restart-runtime',
  tier: 'disruptive',
  description: 'restart kubelet and containerd to release leaked threads',
  document: 'restartRuntime',
  parameters: { Target: 'both', DryRun: 'false' },
};
const RESTART_AWS_NODE: Candidate = {
  id: 'restart-aws-node',
  tier: 'cluster',
  description: 'restart aws-node on the node (delete its pod of DaemonSet kube-system/aws-node)',
};
const ATTACH_ECR_PULL_POLICY: Candidate = {
  id: 'attach-managed-policy',
  tier: 'account',
  description: 'attach AmazonEC2ContainerRegistryPullOnly to the node role',
};

/** Restore and pin the node's trusted pause image (its probe's reading) in place. */
function repairPauseImage(sandboxImage: string | undefined): Candidate {
  return {
    id: 'repair-pause-image',
    tier: 'in-place',
    description: `restore and pin the pause image${sandboxImage ? ` ${sandboxImage}` : ''} in place`,
    document: 'repairPauseImage',
    parameters: { Image: sandboxImage ?? '', DryRun: 'false' },
  };
}

/** The node's candidates when the incident names a node; none otherwise. */
const onNode =
  (...candidates: Candidate[]) =>
  (i: CandidateInput): Candidate[] =>
    i.instanceId !== undefined ? candidates : [];
/** The candidate when the named check failed; none otherwise. */
const whenFailing =
  (checkId: string, candidate: Candidate) =>
  (i: CandidateInput): Candidate[] =>
    failing(i.findings, checkId) ? [candidate] : [];
/** The candidate whatever the node and the checks say. */
const always = (candidate: Candidate) => (): Candidate[] => [candidate];

/** Per class, the actions that can address it; a class not listed has none. */
const CANDIDATES: Partial<Record<FailureClass, (i: CandidateInput) => Candidate[]>> = {
  'sandbox-image': (i) => [
    ...(i.instanceId !== undefined ? [repairPauseImage(i.sandboxImage)] : []),
    ...whenFailing('iam.node-role.ecr-read', ATTACH_ECR_PULL_POLICY)(i),
  ],
  'pid-exhaustion': onNode(COLLECT_LOGS, RESTART_RUNTIME),
  'disk-full': onNode(COLLECT_LOGS),
  'runtime-failure': onNode(COLLECT_LOGS),
  'cni-failure': onNode(COLLECT_LOGS),
  'ipamd-unavailable': onNode(COLLECT_LOGS, RESTART_AWS_NODE),
  'windows-ipam': always({
    id: 'enable-windows-ipam',
    tier: 'cluster',
    description: 'set enable-windows-ipam: "true" in ConfigMap kube-system/amazon-vpc-cni',
  }),
  'cidr-fragmentation': (i) => [
    noFreePrefixBlock(i.findings)
      ? {
          id: 'use-secondary-ips',
          tier: 'account',
          description:
            'no free aligned /28 is left: move the VPC CNI from prefix delegation to secondary IPs (vpc-cni add-on configuration ENABLE_PREFIX_DELEGATION=false) or add a subnet',
        }
      : {
          id: 'create-cidr-reservation',
          tier: 'account',
          description: 'create a prefix-type subnet CIDR reservation (or add a subnet) for prefix delegation',
        },
  ],
  'cni-permissions': (i) => [
    {
      id: 'attach-managed-policy',
      tier: 'account',
      description: 'attach AmazonEKS_CNI_Policy to the role aws-node uses',
    },
    ...onNode({ ...RESTART_AWS_NODE, description: `${RESTART_AWS_NODE.description} once the policy is attached` })(i),
  ],
  'registry-auth': whenFailing('iam.node-role.ecr-read', ATTACH_ECR_PULL_POLICY),
  'registry-unreachable': whenFailing('vpc.endpoint.sg-443', {
    id: 'add-sg-rule',
    tier: 'account',
    description: 'allow TCP 443 from the node security group on the ECR endpoint security group',
  }),
  'rate-limited': always({
    id: 'create-pull-through-cache',
    tier: 'account',
    description: 'create an ECR pull-through cache rule for Docker Hub and point images at it',
  }),
};

/** The actions that can address a class, before safety rules. */
export function candidateActions(input: CandidateInput): Candidate[] {
  // Copies: a caller may spread or extend them, never share the table's objects.
  return (CANDIDATES[input.class]?.(input) ?? []).map((c) => ({ ...c }));
}

/**
 * Kubernetes findings (`k8s.*`) are evidence for the e-mail and for verification, not a gate: when
 * the cluster cannot be read (RBAC not applied, API unreachable) they are `error` and reported,
 * but the account checks and the node probe still decide.
 */
export function isAdvisory(findingId: string): boolean {
  return findingId.startsWith('k8s.');
}

/**
 * The breaker: more than the configured share of the node group hit by the class means a shared
 * cause, not this node. One node alone is never a shared cause, however small its node group.
 */
export function breakerBlock(
  i: Pick<PolicyInput, 'class' | 'affectedNodes' | 'nodeGroupSize' | 'limits'>,
): string | undefined {
  const share = i.nodeGroupSize > 0 ? i.affectedNodes / i.nodeGroupSize : 0;
  if (i.nodeGroupSize > 0 && i.affectedNodes >= 2 && share > i.limits.maxNodeGroupShareAffected)
    return `breaker: ${i.affectedNodes}/${i.nodeGroupSize} nodes of the node group hit by ${i.class} (> ${Math.round(i.limits.maxNodeGroupShareAffected * 100)}%): the cause is shared, not this node`;
  return undefined;
}

/** The hourly cap of node actions per cluster. */
export function capBlock(i: Pick<PolicyInput, 'nodeActionsLastHour' | 'limits'>): string | undefined {
  const max = i.limits.maxNodeActionsPerClusterPerHour;
  return i.nodeActionsLastHour >= max
    ? `hourly cap: ${i.nodeActionsLastHour} node actions in this cluster in the last hour (max ${max})`
    : undefined;
}

/** The per-node, per-class cooldown after an action. */
export function cooldownBlock(
  i: Pick<PolicyInput, 'class' | 'lastNodeActionAt' | 'limits' | 'now'>,
): string | undefined {
  if (i.lastNodeActionAt === undefined) return undefined;
  return i.now < i.lastNodeActionAt + i.limits.nodeCooldownMinutes * 60_000
    ? `cooldown: pod-doctor acted on this node for ${i.class} less than ${i.limits.nodeCooldownMinutes} min ago`
    : undefined;
}

/**
 * The safety policy: per-class mode, risk tiers, kill switch, fail closed on check errors, hourly
 * cap, node-group breaker and per-node cooldown. Pure; every rule names itself in `reason`.
 */
export function decide(input: PolicyInput): Plan {
  const reasons: string[] = [];
  const errors = input.findings.filter((f) => f.status === 'error' && !isAdvisory(f.id)).map((f) => f.id);

  const actions: PlannedAction[] = candidateActions(input).map((c) => {
    const isNode = c.document !== undefined;
    let d: Disposition = TIER_DEFAULT[c.tier];
    let reason = `${c.tier} action: default ${d}`;
    const block = (why: string) => {
      d = 'blocked';
      reason = why;
    };
    if (input.mode === 'observe') {
      d = 'recommend';
      reason = `class ${input.class} is in observe mode`;
    } else if (input.mode === 'approve' && d === 'auto') {
      d = 'approve';
      reason = `class ${input.class} is in approve mode`;
    }
    if (d === 'recommend') return { ...c, disposition: d, reason };
    if (c.id === 'repair-pause-image' && !input.sandboxImage)
      block(input.repairRefusal ?? 'no trusted sandbox image from the node probe');
    else if (input.killSwitch) block('kill switch is on');
    else if (!input.clusterOptedIn) block('cluster is not configured for pod-doctor');
    else if (errors.length) block(`fail closed: check(s) could not run: ${errors.join(', ')}`);
    else if (isNode) {
      const why = breakerBlock(input) ?? capBlock(input) ?? cooldownBlock(input);
      if (why) block(why);
    }
    return { ...c, disposition: d, reason };
  });

  for (const a of actions) if (a.disposition === 'blocked') reasons.push(`${a.id}: ${a.reason}`);
  const runnable = (a: PlannedAction) =>
    a.document !== undefined && (a.disposition === 'auto' || a.disposition === 'approve');
  const nodeAction = actions.find((a) => runnable(a) && a.disposition === 'auto') ?? actions.find((a) => runnable(a));
  const followUp = nodeAction ? actions.find((a) => a !== nodeAction && runnable(a)) : undefined;
  const decision: Decision =
    nodeAction?.disposition === 'auto'
      ? 'act'
      : nodeAction?.disposition === 'approve'
        ? 'approve'
        : actions.length && actions.every((a) => a.disposition === 'blocked')
          ? 'blocked'
          : 'recommend';
  const recommendations = [
    ...actions
      .filter(
        (a) =>
          a.disposition === 'recommend' ||
          (a.disposition === 'blocked' && (a.tier === 'account' || a.tier === 'cluster')),
      )
      .map((a) => a.description),
    ...input.findings
      .filter((f) => (f.status === 'fail' || f.status === 'warn') && f.remediation)
      .map((f) => `${f.id}: ${f.remediation}`),
    ...(CLASS_ADVICE[input.class] ? [CLASS_ADVICE[input.class] as string] : []),
  ];
  return { decision, actions, nodeAction, followUp, reasons, recommendations: [...new Set(recommendations)] };
}

/** What a human should do for a class, whatever the checks found (from the field runbooks). */
export const CLASS_ADVICE: Partial<Record<FailureClass, string>> = {
  'windows-ipam':
    'set enable-windows-ipam: "true" in ConfigMap amazon-vpc-cni (kube-system) and give Windows pods the nodeSelector kubernetes.io/os: windows',
  'branch-eni':
    "the VPC resource controller (EKS control plane) lost its credentials: open an AWS Support case with this incident's evidence",
  'image-platform':
    "build or pick an image variant for the node's architecture (or schedule the pod on nodes of the image's architecture)",
  'registry-tls': "trust the registry's CA on the nodes (or stop the TLS-intercepting proxy for the registry)",
  'ipamd-unavailable':
    'check the aws-node pod on the node (kubectl -n kube-system get pods -l k8s-app=aws-node -o wide) and its logs',
  'image-not-found': 'fix the image reference in the pod spec (name, tag or digest)',
  'rate-limited': 'authenticate Docker Hub pulls (imagePullSecrets) or mirror the images',
};

/** Which account check groups are worth running for a class (the rest are noise for it). */
export const CHECKS_FOR_CLASS: Readonly<
  Record<FailureClass, readonly ('iam' | 'ecr' | 'network' | 'eks' | 'changes')[]>
> = {
  'sandbox-image': ['iam', 'network', 'changes'],
  'pid-exhaustion': ['eks'],
  'ip-exhaustion': ['network', 'eks'],
  'cidr-fragmentation': ['network', 'changes'],
  'ipamd-unavailable': ['iam', 'eks', 'changes'],
  'cni-permissions': ['iam', 'eks', 'changes'],
  'cni-failure': ['iam', 'eks'],
  'windows-ipam': ['eks'],
  'branch-eni': ['eks', 'changes'],
  'image-not-found': ['ecr'],
  'image-platform': ['ecr'],
  'registry-auth': ['iam', 'ecr', 'changes'],
  'registry-unreachable': ['network', 'changes'],
  'registry-tls': ['network'],
  'rate-limited': [],
  'disk-full': ['eks'],
  'runtime-failure': ['eks'],
  'image-pull-failed': ['ecr', 'network'],
  unknown: [],
};

/** Classes whose node probe is worth an SSM round trip. */
export const PROBE_CLASSES: ReadonlySet<FailureClass> = new Set([
  'sandbox-image',
  'pid-exhaustion',
  'disk-full',
  'runtime-failure',
  'registry-unreachable',
  'ipamd-unavailable',
]);
