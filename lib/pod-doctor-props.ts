import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { ClassMode, FailureClass } from '../lambdas/core/contract/failure-classes.js';
import type { IngestLimits } from '../lambdas/core/incident/ingest-limits.js';
import type { RemedyTier } from '../lambdas/core/remedy/apply-path.js';
import { type PodDoctorConfig, type PodDoctorConfigInput, parseConfig } from './config.js';
import type { NotificationChannels } from './constructs/channels/channel-props.js';

/** What account remedies may change in one cluster. */
export interface ClusterRemediation {
  /**
   * IAM role names (with their path, e.g. `eks/node-role`) of node roles and the aws-node role.
   * @default - none
   */
  readonly roles?: readonly string[];
  /**
   * Security groups of the cluster's ECR interface endpoints.
   * @default - none
   */
  readonly endpointSecurityGroups?: readonly string[];
  /**
   * Node subnets where prefix-type CIDR reservations may be created.
   * @default - none
   */
  readonly subnets?: readonly string[];
  /**
   * The Docker Hub ECR pull-through cache rule remedies of `rate-limited` may create.
   * @default - none: no rule is created
   */
  readonly pullThroughCache?: PullThroughCacheRemediation;
  /**
   * The cluster's managed vpc-cni add-on may move from prefix delegation to secondary IPs
   * (`ENABLE_PREFIX_DELEGATION=false` in its configuration values) when no free aligned /28 is left.
   * Always asks first.
   * @default false
   */
  readonly vpcCniAddon?: boolean;
}

/** The Docker Hub pull-through cache rule of one cluster's remediation. */
export interface PullThroughCacheRemediation {
  /**
   * ECR repository prefix of the rule.
   * @default 'docker-hub'
   */
  readonly ecrRepositoryPrefix?: string;
  /**
   * ARN of the Secrets Manager secret (named `ecr-pullthroughcache/…`) holding the Docker Hub
   * credentials; Docker Hub upstreams need one.
   * @default - none: the rule cannot be created (reported as not applicable)
   */
  readonly credentialArn?: string;
}

/** One EKS cluster pod-doctor watches (the `clusters[]` entry of the cdk.json configuration). */
export interface PodDoctorCluster {
  /** EKS cluster name, as in `aws eks describe-cluster --name`. */
  readonly name: string;
  /**
   * Region of the cluster; only the stack's own region is accepted.
   * @default - the stack's region
   */
  readonly region?: string;
  /**
   * Log groups to subscribe (Container Insights dataplane, ipamd, ...).
   * @default - none: CloudTrail events only
   */
  readonly logGroups?: readonly string[];
  /**
   * ARNs of the cluster's node roles: the evidence bucket lets them upload log bundles.
   * @default - none
   */
  readonly nodeRoleArns?: readonly string[];
  /**
   * What account remedies may change in this cluster.
   * @default - nothing: remedies are recommended only
   */
  readonly remediation?: ClusterRemediation;
  /**
   * pod-doctor reads and acts through the cluster's Kubernetes API (an EKS access entry per
   * function). Set `false` for a cluster whose authentication mode is `CONFIG_MAP` (CloudFormation
   * refuses access entries there, failing the whole deployment) or whose endpoint the functions
   * cannot reach: no access entry and no sweep for it; logs, CloudTrail and Run Command only, cluster
   * remedies recommended. `pod-doctor preflight` says which applies.
   * @default true
   */
  readonly kubernetesApi?: boolean;
  /**
   * The cluster's VPC (`aws eks describe-cluster`'s `resourcesVpcConfig`), for a cluster whose API
   * endpoint pod-doctor cannot reach from outside it (private only, or public but limited to CIDRs):
   * the functions that talk to its API server run in it, one set per VPC.
   * @default - the context value `pod-doctor:cluster-vpc:<region>:<name>` when the app has one, else none: the functions run outside any VPC
   */
  readonly vpc?: ClusterVpc;
}

/** Where pod-doctor's Kubernetes functions run for a cluster with a private (or CIDR-restricted) endpoint. */
export interface ClusterVpc {
  /** The cluster's VPC (`resourcesVpcConfig.vpcId`). */
  readonly vpcId: string;
  /** Subnets of that VPC the functions get their network interfaces in (the cluster's `subnetIds`). */
  readonly subnetIds: readonly string[];
  /** The cluster security group (`resourcesVpcConfig.clusterSecurityGroupId`): it admits the functions on 443. */
  readonly clusterSecurityGroupId: string;
}

/**
 * Props of {@link PodDoctor}: the same names as the `pod-doctor` keys of cdk.json, typed with CDK
 * types (durations, retention, removal policy), plus resources you may bring yourself.
 */
export interface PodDoctorProps {
  /**
   * Clusters to watch; node commands run only on instances tagged as nodes of these clusters.
   * @default - none
   */
  readonly clusters?: readonly PodDoctorCluster[];
  /**
   * Addresses subscribed to the notification topic (each confirms once).
   * @default - none
   */
  readonly notificationEmails?: readonly string[];
  /**
   * Per failure class: `observe` (recommend only), `approve` (act after approval) or `auto`.
   * @default - `sandbox-image: auto`, `pid-exhaustion` and `disk-full: approve`, others `observe`
   */
  readonly modes?: Partial<Record<FailureClass, ClassMode>>;
  /**
   * Per failure class: how its account remedy runs once the class mode allows action (also its
   * cluster remedies, and for `sandbox-image` the eviction of pods that stay stuck after the repair).
   * @default - `approve` for every class
   */
  readonly remedies?: Partial<Record<FailureClass, RemedyTier>>;
  /**
   * Most node actions pod-doctor starts per cluster in one hour.
   * @default 5
   */
  readonly maxNodeActionsPerClusterPerHour?: number;
  /**
   * Share of a node group (0..1) hit by one class above which node actions stop (a shared cause).
   * @default 0.3
   */
  readonly maxNodeGroupShareAffected?: number;
  /**
   * What log lines and stuck pods can make pod-doctor open and start: new incidents and executions per
   * delivery, per cluster and hour, and how often an incident is evaluated again when new lines arrive
   * after a run that verified no repair. Each field over its default (see DEFAULT_INGEST_LIMITS).
   * @default DEFAULT_INGEST_LIMITS (20 per delivery; 100 incidents and 60 executions per cluster and hour; 3 re-evaluations, 5 minutes apart)
   */
  readonly ingestLimits?: Partial<IngestLimits>;
  /**
   * Repeats of one (cluster, scope, class) within this window join one incident (whole minutes).
   * @default Duration.minutes(30)
   */
  readonly incidentWindow?: Duration;
  /**
   * Wait after an action before the same class may act on a node again (whole minutes).
   * @default Duration.minutes(60)
   */
  readonly nodeCooldown?: Duration;
  /**
   * How long an approval request waits; no answer means no action (whole minutes).
   * @default Duration.minutes(60)
   */
  readonly approvalTimeout?: Duration;
  /**
   * After a repair, new failure lines from the node within this window mean it did not work.
   * @default Duration.minutes(2)
   */
  readonly verificationWindow?: Duration;
  /**
   * Name of the SSM parameter whose value `on` stops every action.
   * @default - a name generated by CloudFormation (unique per instance)
   */
  readonly killSwitchParameterName?: string;
  /**
   * Sandbox image repositories (no tag) pod-doctor may restore besides the Amazon EKS pause
   * repositories of each Region and localhost/kubernetes/pause, e.g. a private mirror.
   * @default - none
   */
  readonly trustedSandboxImages?: readonly string[];
  /**
   * IAM events are forwarded from us-east-1 by the account's forwarder stack (`true`, or the list of
   * Regions it serves; see `createApp`): no warning that they are not seen.
   * @default false
   */
  readonly forwardIamEvents?: boolean | readonly string[];
  /**
   * Concurrent executions reserved for the public approval endpoint, and why this account can afford
   * them (Lambda refuses a reservation that leaves fewer than 10 unreserved executions: a new
   * account's quota of 10 refuses any).
   * @default - none reserved; the endpoint refuses malformed, expired and unsigned requests before any AWS call
   */
  readonly approvalReservedConcurrency?: {
    /** Concurrent executions reserved (1 to 1000). */
    readonly executions: number;
    /** Why this account can afford them (at least 10 characters; recorded in the template). */
    readonly reason: string;
  };
  /**
   * How long incident rows stay in the history table (DynamoDB TTL, whole days).
   * @default Duration.days(365)
   */
  readonly historyRetention?: Duration;
  /**
   * How long evidence objects stay in the evidence bucket (whole days).
   * @default Duration.days(365)
   */
  readonly evidenceRetention?: Duration;
  /**
   * Retention of the Lambda and Step Functions logs.
   * @default RetentionDays.THREE_MONTHS
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the audit trail pod-doctor creates when it is removed: the history table (its
   * deletion protection is on only with `RETAIN`), the evidence and access-log buckets (S3 deletes
   * only empty buckets), and every function and execution log group.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Topic for summaries, approval requests, failure notices and alarms. Bring your own to route
   * them elsewhere; pod-doctor subscribes `notificationEmails` to it and publishes with
   * `grantPublish`. EventBridge (failed executions) must be allowed to publish to it.
   * @default - a topic encrypted with `encryptionKey`
   */
  readonly topic?: ITopic;
  /**
   * Customer managed key of the topic pod-doctor creates (ignored when `topic` is given).
   * @default - a new key with rotation
   */
  readonly encryptionKey?: IKey;
  /**
   * Chat channels (Slack, Microsoft Teams through Amazon Q Developer in chat applications) and pagers
   * (PagerDuty, Opsgenie) besides e-mail. With any channel the incident table gets a stream.
   * @default - e-mail only
   */
  readonly channels?: NotificationChannels;
  /**
   * Incident table: string keys `pk`/`sk`, TTL on `expiresAt` (with `channels`: a `NEW_IMAGE` stream).
   * @default - a new on-demand table with point-in-time recovery
   */
  readonly incidentTable?: ITableV2;
  /**
   * Evidence bucket (summaries under `incidents/`, unreadable records under `rejected/`).
   * @default - a new encrypted, versioned bucket with access logs and `evidenceRetention` expiry
   */
  readonly evidenceBucket?: IBucket;
}

/** Whole units of a duration, refusing fractions (the workflow counts in minutes, TTL in days). */
function whole(d: Duration | undefined, unit: 'toMinutes' | 'toDays'): number | undefined {
  return d === undefined ? undefined : d[unit]({ integral: true });
}

/**
 * The validated configuration the constructs and functions read, from props. Validation is the same
 * as for cdk.json (zod), so a bad value names its key.
 */
export function configFromProps(props: PodDoctorProps): PodDoctorConfig {
  const input: PodDoctorConfigInput = {
    clusters: props.clusters?.map((c) => ({
      name: c.name,
      region: c.region,
      logGroups: c.logGroups ? [...c.logGroups] : undefined,
      nodeRoleArns: c.nodeRoleArns ? [...c.nodeRoleArns] : undefined,
      kubernetesApi: c.kubernetesApi,
      vpc: c.vpc && { ...c.vpc, subnetIds: [...c.vpc.subnetIds] },
      remediation: c.remediation
        ? {
            roles: c.remediation.roles && [...c.remediation.roles],
            endpointSecurityGroups: c.remediation.endpointSecurityGroups && [...c.remediation.endpointSecurityGroups],
            subnets: c.remediation.subnets && [...c.remediation.subnets],
            pullThroughCache: c.remediation.pullThroughCache && { ...c.remediation.pullThroughCache },
            vpcCniAddon: c.remediation.vpcCniAddon,
          }
        : undefined,
    })),
    notificationEmails: props.notificationEmails && [...props.notificationEmails],
    modes: props.modes,
    remedies: props.remedies,
    limits: {
      maxNodeActionsPerClusterPerHour: props.maxNodeActionsPerClusterPerHour,
      maxNodeGroupShareAffected: props.maxNodeGroupShareAffected,
      incidentWindowMinutes: whole(props.incidentWindow, 'toMinutes'),
      nodeCooldownMinutes: whole(props.nodeCooldown, 'toMinutes'),
      approvalTimeoutMinutes: whole(props.approvalTimeout, 'toMinutes'),
      verificationWindowMinutes: whole(props.verificationWindow, 'toMinutes'),
    },
    ingestLimits: props.ingestLimits && { ...props.ingestLimits },
    killSwitchParameterName: props.killSwitchParameterName,
    trustedSandboxImages: props.trustedSandboxImages && [...props.trustedSandboxImages],
    forwardIamEvents: typeof props.forwardIamEvents === 'object' ? [...props.forwardIamEvents] : props.forwardIamEvents,
    approvalReservedConcurrency: props.approvalReservedConcurrency,
    historyRetentionDays: whole(props.historyRetention, 'toDays'),
    evidenceRetentionDays: whole(props.evidenceRetention, 'toDays'),
    logRetentionDays: props.logRetention,
  };
  return parseConfig(JSON.parse(JSON.stringify(input)));
}
