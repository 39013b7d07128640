import * as z from 'zod/mini';
import { CLASS_MODES, FAILURE_CLASSES } from '../contract/failure-classes.js';
import { SIGNALS } from '../contract/signals.js';
import { agentRequestSchema } from '../door/agent-request.js';
import { ingestLimitsSchema } from '../incident/ingest-limits.js';
import { REMEDY_TIERS } from '../remedy/apply-path.js';
import '../text/zod-english.js';

const strings = () => z._default(z.array(z.string()), []);
const integer = (min: number) => z.number().check(z.int(), z.minimum(min));

/** Per cluster: the resources account remedies may change (the remedy role is scoped to the same). */
export const remediationScopeSchema = z.object({
  roles: strings(),
  endpointSecurityGroups: strings(),
  subnets: strings(),
  /** The Docker Hub pull-through cache rule remedies may create. */
  pullThroughCache: z.optional(z.object({ ecrRepositoryPrefix: z.string(), credentialArn: z.optional(z.string()) })),
  /** The managed vpc-cni add-on may move from prefix delegation to secondary IPs. */
  vpcCniAddon: z.optional(z.boolean()),
});

/**
 * What pod-doctor's functions know of the deployment: one document per deployed version, written to
 * the incident table at deploy time and loaded by every function (`lambdas/aws/runtime/config-store.ts`).
 */
export const workflowConfigSchema = z.object({
  clusters: z.array(
    z.object({
      name: z.string(),
      region: z.optional(z.string()),
      /** Log groups subscribed for this cluster (the ingest function maps a record's group to its cluster). */
      logGroups: strings(),
      remediation: z._default(remediationScopeSchema, { roles: [], endpointSecurityGroups: [], subnets: [] }),
      /** The cluster's node roles (pull-through cache: may they pull through it?). */
      nodeRoleArns: strings(),
      /** false: no access entry for this cluster (CONFIG_MAP, unreachable endpoint); absent: true. */
      kubernetesApi: z.optional(z.boolean()),
      /** The VPC whose copies of the Kubernetes functions reach its API server; absent: outside any VPC. */
      reach: z.optional(z.string()),
    }),
  ),
  modes: z.record(z.enum(FAILURE_CLASSES), z.enum(CLASS_MODES)),
  /** The stack has the Kubernetes function: cluster remedies can run (absent: they are recommended). */
  clusterAccess: z.optional(z.boolean()),
  /** Per class: how its account remedy runs (absent: approve). */
  remedies: z._default(z.partialRecord(z.enum(FAILURE_CLASSES), z.enum(REMEDY_TIERS)), {}),
  limits: z.object({
    maxNodeActionsPerClusterPerHour: integer(0),
    maxNodeGroupShareAffected: z.number().check(z.gt(0), z.maximum(1)),
    incidentWindowMinutes: integer(1),
    nodeCooldownMinutes: integer(0),
  }),
  /** What log lines and stuck pods can make pod-doctor open and start (ingest and the sweep; absent: DEFAULT_INGEST_LIMITS). */
  ingestLimits: z.optional(ingestLimitsSchema),
  killSwitchParameterName: z.string(),
  /** NODE_COMMANDS key → SSM document name. */
  documents: z.object({
    probeNode: z.string(),
    repairPauseImage: z.string(),
    collectLogs: z.string(),
    restartRuntime: z.string(),
  }),
  historyRetentionDays: integer(1),
  evidenceBucket: z.string(),
  tableName: z.string(),
  /** Sandbox image repositories trusted beyond the EKS pause repositories and localhost/kubernetes/pause. */
  trustedSandboxImages: z.optional(z.array(z.string())),
});

export type WorkflowConfig = z.output<typeof workflowConfigSchema>;

/** The document is not valid JSON or does not match {@link workflowConfigSchema}. */
export class InvalidWorkflowConfigError extends Error {
  override readonly name = 'InvalidWorkflowConfigError';
}

/**
 * Parses and validates a configuration document.
 * @throws InvalidWorkflowConfigError naming what is wrong (`where` says which document)
 */
export function parseWorkflowConfig(raw: string | undefined, where = 'the configuration document'): WorkflowConfig {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? '');
  } catch (e) {
    throw new InvalidWorkflowConfigError(`${where} is not JSON: ${(e as Error).message}`);
  }
  const r = workflowConfigSchema.safeParse(json);
  if (!r.success)
    throw new InvalidWorkflowConfigError(
      `${where} does not match the configuration schema: ${r.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')}`,
    );
  return r.data;
}

/** The log group → cluster map the ingest function reads records with. */
export function logGroupClusters(config: WorkflowConfig): Record<string, string> {
  return Object.fromEntries(config.clusters.flatMap((c) => c.logGroups.map((g) => [g, c.name])));
}

/** The incident as the ingest path starts the workflow with it. */
export const incidentInputSchema = z.object({
  incidentId: z.string(),
  incidentKey: z.string(),
  class: z.enum(FAILURE_CLASSES),
  kind: z._default(z.enum(['failure', 'change']), 'failure'),
  cluster: z.string(),
  scope: z.string(),
  scopeValue: z.string(),
  cause: z.string(),
  entities: z._default(z.record(z.string(), z.string()), {}),
  /** Where each entity came from when its source says (Kubernetes events); the action door reads it. */
  factSources: z.optional(z.record(z.string(), z.string())),
  firstSeen: z.string(),
  samples: strings(),
  pods: strings(),
  /** Set when an agent asked for this run (MCP `request_action`): every change asks a human first. */
  agentRequest: z.optional(agentRequestSchema),
  /** The signals the incident was seen on when it opened (kubernetes-events, dataplane-logs …). */
  signals: z._default(z.array(z.enum(SIGNALS)), []),
  /** A fleet member's incident: its account and Region, as the hub's intake admitted them (absent: this account's). */
  account: z.optional(z.string().check(z.regex(/^\d{12}$/))),
  region: z.optional(z.string().check(z.regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/))),
});

export type IncidentInput = z.output<typeof incidentInputSchema>;

/**
 * The configuration a function falls back to when the stored document is not the one its deployment
 * pinned: every class observed, every remedy a dry run, no node action in any hour, no sandbox image
 * trusted beyond pod-doctor's own list. Nothing it says can make pod-doctor act.
 */
export function observeOnly(config: WorkflowConfig): WorkflowConfig {
  const { trustedSandboxImages: _, ...rest } = config;
  return {
    ...rest,
    modes: Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 'observe'])) as WorkflowConfig['modes'],
    remedies: Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 'dry-run'])) as WorkflowConfig['remedies'],
    limits: { ...config.limits, maxNodeActionsPerClusterPerHour: 0 },
  };
}
