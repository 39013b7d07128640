import { z } from 'zod';
import {
  CLASS_MODES,
  type ClassMode,
  DEFAULT_CLASS_MODES,
  FAILURE_CLASSES,
  type FailureClass,
} from '../lambdas/core/contract/failure-classes.js';
import { DEFAULT_INGEST_LIMITS } from '../lambdas/core/incident/ingest-limits.js';
import { REMEDY_TIERS } from '../lambdas/core/remedy/apply-path.js';
import { clusterVpcSchema } from './cluster-vpc-schema.js';

/** The cdk.json context key that holds the pod-doctor configuration. */
export const CONFIG_CONTEXT_KEY = 'pod-doctor';

/** CloudWatch Logs retention values CloudFormation accepts (days). */
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** An AWS Region code. */
const regionSchema = z
  .string()
  .regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/, 'must be an AWS region code such as eu-west-1');

const clusterSchema = z.strictObject({
  /** EKS cluster name, as in `aws eks describe-cluster --name`. */
  name: z
    .string()
    .regex(/^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/, 'must be a valid EKS cluster name ([0-9A-Za-z][A-Za-z0-9-_]{0,99})'),
  /**
   * Region of the cluster. Only the stack's own region is accepted (refused at synth, or at deploy
   * when the stack is environment-agnostic): pod-doctor watches clusters in its own region.
   */
  region: regionSchema.optional(),
  /** Log groups to subscribe (Container Insights dataplane, ipamd, ...). */
  logGroups: z
    .array(z.string().regex(/^[.\-_/#A-Za-z0-9]{1,512}$/, 'must be a CloudWatch Logs log group name'))
    .default([]),
  /**
   * What account remedies may change in this cluster; the remedy role is granted exactly these
   * resources. Default: nothing (remedies are recommended only).
   */
  remediation: z
    .strictObject({
      /** IAM role names (with their path, e.g. "eks/node-role") of node roles and the aws-node role. */
      roles: z.array(z.string().regex(/^([\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/, 'must be an IAM role name')).default([]),
      /** Security groups of the cluster's ECR interface endpoints. */
      endpointSecurityGroups: z
        .array(z.string().regex(/^sg-[0-9a-f]{8,17}$/, 'must be a security group id (sg-...)'))
        .default([]),
      /** Node subnets where prefix-type CIDR reservations may be created. */
      subnets: z.array(z.string().regex(/^subnet-[0-9a-f]{8,17}$/, 'must be a subnet id (subnet-...)')).default([]),
      /**
       * The ECR pull-through cache rule for Docker Hub remedies of `rate-limited` may create: its
       * repository prefix and the Secrets Manager secret (`ecr-pullthroughcache/…`) with the Docker
       * Hub credentials. Absent: no rule is created.
       */
      pullThroughCache: z
        .strictObject({
          ecrRepositoryPrefix: z
            .string()
            .regex(
              /^(?=.{2,30}$)(?:[a-z0-9]+(?:[._-][a-z0-9]+)*\/)*[a-z0-9]+(?:[._-][a-z0-9]+)*$/,
              'must be an ECR repository prefix (2-30 characters)',
            )
            .default('docker-hub'),
          credentialArn: z
            .string()
            .regex(
              /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:ecr-pullthroughcache\/[a-zA-Z0-9/_+=.@-]+$/,
              'must be the ARN of a Secrets Manager secret named ecr-pullthroughcache/...',
            )
            .optional(),
        })
        .optional(),
      /**
       * The cluster's managed vpc-cni add-on may move from prefix delegation to secondary IPs
       * (configuration values ENABLE_PREFIX_DELEGATION=false) when no free aligned /28 is left.
       */
      vpcCniAddon: z.boolean().default(false),
    })
    .default({ roles: [], endpointSecurityGroups: [], subnets: [], vpcCniAddon: false }),
  /**
   * pod-doctor reads and acts through the cluster's Kubernetes API (an EKS access entry per
   * function). `false` for a cluster whose authentication mode is `CONFIG_MAP` (access entries need
   * `API` or `API_AND_CONFIG_MAP`: CloudFormation would refuse them and fail the whole deployment) or
   * whose endpoint pod-doctor's functions cannot reach: no access entry, no sweep; the cluster is
   * watched through its logs, CloudTrail and Run Command, and cluster remedies are recommended.
   */
  kubernetesApi: z.boolean().default(true),
  /** The cluster's VPC, where the functions that talk to its API server run (lib/cluster-vpc-schema.ts). */
  vpc: clusterVpcSchema.optional(),
  /**
   * IAM roles of the cluster's nodes (instance profile roles). The evidence bucket lets them put
   * collect-logs bundles under `incidents/`; without them collect-logs cannot upload.
   */
  nodeRoleArns: z
    .array(
      z
        .string()
        .regex(
          /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/,
          'must be an IAM role ARN (arn:aws:iam::<account>:role/<name>)',
        ),
    )
    .default([]),
});

const modesSchema = z
  .partialRecord(z.enum(FAILURE_CLASSES), z.enum(CLASS_MODES))
  .default({})
  .transform((m): Record<FailureClass, ClassMode> => ({ ...DEFAULT_CLASS_MODES, ...m }));

const limitsSchema = z
  .strictObject({
    /** Most node actions (repair, restart) pod-doctor starts per cluster in one hour. */
    maxNodeActionsPerClusterPerHour: z.int().min(0).max(1000).default(5),
    /** Share of a node group (0..1) hit by the same class above which node actions stop: the cause is shared. */
    maxNodeGroupShareAffected: z.number().gt(0).max(1).default(0.3),
    /** Minutes within which repeats of one (cluster, scope, class) join the same incident. */
    incidentWindowMinutes: z.int().min(1).max(1440).default(30),
    /** Minutes a node must wait after an action before the same class may act on it again. */
    nodeCooldownMinutes: z.int().min(0).max(1440).default(60),
    /** Minutes an approval request waits; no answer means no action. */
    approvalTimeoutMinutes: z
      .int()
      .min(1)
      .max(7 * 24 * 60)
      .default(60),
    /** Minutes after a repair during which new failure lines from the node mean it did not work. */
    verificationWindowMinutes: z.int().min(0).max(60).default(2),
  })
  .default({
    maxNodeActionsPerClusterPerHour: 5,
    maxNodeGroupShareAffected: 0.3,
    incidentWindowMinutes: 30,
    nodeCooldownMinutes: 60,
    approvalTimeoutMinutes: 60,
    verificationWindowMinutes: 2,
  });

/**
 * A Secrets Manager secret by its complete ARN (with the 6-character suffix): the CloudFormation
 * dynamic reference EventBridge's connection reads it through needs the whole ARN.
 */
const secretRef = (what: string) =>
  z
    .string()
    .regex(
      /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/,
      `must be the complete ARN (with its 6-character suffix) of the Secrets Manager secret holding ${what}`,
    );
const teamsId = (what: string) =>
  z
    .string()
    .regex(/^[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}$/, `must be the Microsoft Teams ${what} (a GUID)`);

/**
 * Chat channels (Amazon Q Developer in chat applications) and pagers. Each id comes from the Amazon Q
 * Developer console after its one-time authorization with Slack or Teams; patterns as
 * AWS::Chatbot::SlackChannelConfiguration and AWS::Chatbot::MicrosoftTeamsChannelConfiguration accept.
 */
const channelsSchema = z
  .strictObject({
    slack: z
      .array(
        z.strictObject({
          workspaceId: z.string().regex(/^[0-9A-Z]{1,255}$/, 'must be a Slack workspace id such as T0123ABCD'),
          channelId: z.string().regex(/^[A-Za-z0-9]{1,255}$/, 'must be a Slack channel id such as C0123ABCD'),
        }),
      )
      .default([]),
    teams: z
      .array(
        z.strictObject({
          teamId: teamsId('team id'),
          tenantId: teamsId('tenant id'),
          channelId: z
            .string()
            .regex(
              /^([a-zA-Z0-9-_=+/.,])*%3[aA]([a-zA-Z0-9-_=+/.,])*%40([a-zA-Z0-9-_=+/.,])*$/,
              'must be a Teams channel id such as 19%3ab6ef35dc342d56ba5654e6fc6d25a071%40thread.tacv2',
            ),
          channelName: z.string().min(1).max(1000).optional(),
        }),
      )
      .default([]),
    pagerDuty: z
      .strictObject({
        /** The secret holding the Events API v2 integration (routing) key. */
        routingKeySecretArn: secretRef('the PagerDuty integration key'),
        jsonField: z.string().min(1).optional(),
      })
      .optional(),
    opsgenie: z
      .strictObject({
        /** The secret holding the header value `GenieKey <API integration key>`. */
        apiKeySecretArn: secretRef('"GenieKey <key>"'),
        jsonField: z.string().min(1).optional(),
        region: z.enum(['us', 'eu']).default('us'),
      })
      .optional(),
  })
  .default({ slack: [], teams: [] });

/**
 * Limits on what log lines and stuck pods can make pod-doctor open and start (lambdas/core/incident/ingest-limits.ts):
 * per delivery, per cluster and hour, and how often an incident is evaluated again.
 */
const ingestLimitsConfigSchema = z
  .strictObject({
    maxIncidentsPerDelivery: z.int().min(1).max(10_000).default(DEFAULT_INGEST_LIMITS.maxIncidentsPerDelivery),
    maxIncidentsPerClusterPerHour: z
      .int()
      .min(1)
      .max(100_000)
      .default(DEFAULT_INGEST_LIMITS.maxIncidentsPerClusterPerHour),
    maxExecutionsPerClusterPerHour: z
      .int()
      .min(1)
      .max(100_000)
      .default(DEFAULT_INGEST_LIMITS.maxExecutionsPerClusterPerHour),
    maxReevaluationsPerIncident: z.int().min(0).max(20).default(DEFAULT_INGEST_LIMITS.maxReevaluationsPerIncident),
    reevaluateAfterMinutes: z.int().min(0).max(1440).default(DEFAULT_INGEST_LIMITS.reevaluateAfterMinutes),
    maxTenantSignalsPerNamespacePerHour: z
      .int()
      .min(0)
      .max(100_000)
      .default(DEFAULT_INGEST_LIMITS.maxTenantSignalsPerNamespacePerHour),
    maxTenantIncidentsPerNamespacePerHour: z
      .int()
      .min(0)
      .max(100_000)
      .default(DEFAULT_INGEST_LIMITS.maxTenantIncidentsPerNamespacePerHour),
    maxTenantIncidentsPerClusterPerHour: z
      .int()
      .min(0)
      .max(100_000)
      .default(DEFAULT_INGEST_LIMITS.maxTenantIncidentsPerClusterPerHour),
  })
  .default({ ...DEFAULT_INGEST_LIMITS });

/** The `pod-doctor` key of cdk.json (and what {@link parseConfig} validates): every key, its bounds and default. */
export const podDoctorConfigSchema = z.strictObject({
  clusters: z.array(clusterSchema).default([]),
  notificationEmails: z.array(z.email('must be an email address')).default([]),
  modes: modesSchema,
  /**
   * Per class: how its account remedy (and its cluster remedies; for `sandbox-image` the eviction of
   * pods that stay stuck after the pause repair) runs once the class mode allows action — `dry-run` (diff only),
   * `approve` (default) or `auto`. A class in `observe` mode only recommends; in `approve` mode an
   * `auto` remedy still asks.
   */
  remedies: z.partialRecord(z.enum(FAILURE_CLASSES), z.enum(REMEDY_TIERS)).default({}),
  limits: limitsSchema,
  ingestLimits: ingestLimitsConfigSchema,
  /**
   * Name of the SSM parameter that stops every action when its value is `on`.
   * Default: a name generated by CloudFormation (see the stack output `KillSwitchParameterName`).
   */
  killSwitchParameterName: z
    .string()
    .regex(/^\/[A-Za-z0-9_.\-/]{1,1010}$/, 'must be an SSM parameter path such as /pod-doctor/kill-switch')
    .optional(),
  /**
   * Sandbox image repositories (no tag) pod-doctor may restore besides the Amazon EKS pause
   * repositories of each Region and localhost/kubernetes/pause, e.g. a private mirror.
   */
  trustedSandboxImages: z
    .array(
      z
        .string()
        .regex(
          /^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)+$/,
          'must be an image repository without tag, such as mirror.example.com/eks/pause',
        ),
    )
    .default([]),
  /**
   * IAM events (node-role policy changes) reach EventBridge in us-east-1 only. `true`: a stack in
   * us-east-1 (one per account) forwards them to this Region's event bus. A list of Regions: every
   * Region pod-doctor runs in in this account, this one included; the account's one forwarder serves
   * exactly those (give every Region's deployment the same list). Needs the account and Region at
   * synth (`cdk deploy` sets them) and `cdk deploy --all`.
   */
  forwardIamEvents: z.union([z.boolean(), z.array(regionSchema).min(1)]).default(false),
  /**
   * Reserve concurrent executions for the public approval endpoint (a cap on what requests to its URL
   * can cost). Off by default: Lambda refuses any reservation that leaves the account fewer than 10
   * unreserved executions, so in a new account (quota 10) the deployment would fail. `reason` says why
   * this account can afford it (it is recorded in the template).
   */
  approvalReservedConcurrency: z
    .strictObject({
      executions: z.int().min(1).max(1000),
      reason: z.string().min(10, 'must say why this account can reserve it (at least 10 characters)'),
    })
    .optional(),
  /** Days an incident stays in the history table (DynamoDB TTL). */
  historyRetentionDays: z.int().min(1).max(3650).default(365),
  /** Days evidence objects stay in the evidence bucket. */
  evidenceRetentionDays: z.int().min(1).max(3650).default(365),
  /** Chat channels and pagers besides e-mail (nothing is created for what is not listed). */
  channels: channelsSchema,
  /** Days Lambda and Step Functions logs are kept. */
  logRetentionDays: z
    .union(LOG_RETENTION_DAYS.map((d) => z.literal(d)) as unknown as [z.ZodLiteral<number>, z.ZodLiteral<number>])
    .default(90),
});

/** A validated configuration, every default filled in (what `parseConfig` returns). */
export type PodDoctorConfig = z.output<typeof podDoctorConfigSchema>;
/** A configuration as written (the `pod-doctor` context key): every key with a default may be left out. */
export type PodDoctorConfigInput = z.input<typeof podDoctorConfigSchema>;

/** A configuration error that names the offending key and what it accepts. */
export class ConfigError extends Error {
  /** The error's name, `ConfigError`. */
  override readonly name = 'ConfigError';
  constructor(
    /** One line per offending key: the key, what it holds and what it accepts. */
    readonly problems: readonly string[],
  ) {
    super(`Invalid pod-doctor configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function keyPath(path: readonly PropertyKey[]): string {
  return [CONFIG_CONTEXT_KEY, ...path]
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const key = keyPath(issue.path);
  const got = JSON.stringify(valueAt(input, issue.path));
  switch (issue.code) {
    case 'invalid_value':
      return `${key}: ${got} is not allowed; allowed values: ${issue.values.map((v) => String(v)).join(' | ')}`;
    case 'unrecognized_keys':
      return `${key}: unknown key(s) ${issue.keys.join(', ')}; allowed keys: ${allowedKeysAt(issue.path).join(' | ')}`;
    case 'invalid_key':
      return `${key}: unknown key; allowed keys: ${FAILURE_CLASSES.join(' | ')}`;
    case 'invalid_union':
      return issue.path.at(-1) === 'forwardIamEvents'
        ? `${key}: ${got} is not allowed; allowed values: true | false | a list of Region codes such as ["eu-west-1", "us-west-2"]`
        : `${key}: ${got} is not allowed; allowed values: ${LOG_RETENTION_DAYS.join(' | ')}`;
    default:
      return `${key}: ${issue.message}${got === undefined ? '' : ` (got ${got})`}`;
  }
}

function allowedKeysAt(path: readonly PropertyKey[]): readonly string[] {
  const last = path.filter((p) => typeof p !== 'number').at(-1);
  if (last === 'modes' || last === 'remedies') return FAILURE_CLASSES;
  if (last === 'remediation') return ['roles', 'endpointSecurityGroups', 'subnets', 'pullThroughCache', 'vpcCniAddon'];
  if (last === 'limits') return Object.keys(limitsSchema.unwrap().shape);
  if (last === 'ingestLimits') return Object.keys(ingestLimitsConfigSchema.unwrap().shape);
  if (last === 'clusters') return Object.keys(clusterSchema.shape);
  if (last === 'channels') return Object.keys(channelsSchema.unwrap().shape);
  if (last === 'slack' || last === 'teams')
    return Object.keys(channelsSchema.unwrap().shape[last].unwrap().element.shape);
  if (last === 'pagerDuty' || last === 'opsgenie')
    return Object.keys(channelsSchema.unwrap().shape[last].unwrap().shape);
  return Object.keys(podDoctorConfigSchema.shape);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * Validates raw configuration (a cdk.json context value: an object, or a JSON string from `-c`).
 * @throws ConfigError naming every bad key
 */
export function parseConfig(raw: unknown): PodDoctorConfig {
  let input = raw ?? {};
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input);
    } catch (e) {
      throw new ConfigError([`${CONFIG_CONTEXT_KEY}: not valid JSON (${(e as Error).message})`]);
    }
  }
  const result = podDoctorConfigSchema.safeParse(input);
  if (!result.success) throw new ConfigError(result.error.issues.map((i) => describeIssue(i, input)));
  const names = result.data.clusters.map((c) => c.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new ConfigError([`${CONFIG_CONTEXT_KEY}.clusters: cluster "${dup}" is listed twice`]);
  return result.data;
}
