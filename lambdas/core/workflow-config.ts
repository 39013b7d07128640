import * as z from 'zod';
import { CLASS_MODES, FAILURE_CLASSES } from './failure-classes.js';
import { REMEDY_TIERS } from './remedy/apply-path.js';

/** Per cluster: the resources account remedies may change (the remedy role is scoped to the same). */
export const remediationScopeSchema = z.object({
  roles: z.array(z.string()).default([]),
  endpointSecurityGroups: z.array(z.string()).default([]),
  subnets: z.array(z.string()).default([]),
  /** The Docker Hub pull-through cache rule remedies may create. */
  pullThroughCache: z.object({ ecrRepositoryPrefix: z.string(), credentialArn: z.string().optional() }).optional(),
  /** The managed vpc-cni add-on may move from prefix delegation to secondary IPs. */
  vpcCniAddon: z.boolean().optional(),
});

/** What the workflow functions know of the deployment, passed as one JSON environment variable. */
export const workflowConfigSchema = z.object({
  clusters: z.array(
    z.object({
      name: z.string(),
      region: z.string().optional(),
      remediation: remediationScopeSchema.default({ roles: [], endpointSecurityGroups: [], subnets: [] }),
      /** The cluster's node roles (pull-through cache: may they pull through it?). */
      nodeRoleArns: z.array(z.string()).default([]),
    }),
  ),
  modes: z.record(z.enum(FAILURE_CLASSES), z.enum(CLASS_MODES)),
  /** The stack has the Kubernetes function: cluster remedies can run (absent: they are recommended). */
  clusterAccess: z.boolean().optional(),
  /** Per class: how its account remedy runs (absent: approve). */
  remedies: z.partialRecord(z.enum(FAILURE_CLASSES), z.enum(REMEDY_TIERS)).default({}),
  limits: z.object({
    maxNodeActionsPerClusterPerHour: z.number().int().min(0),
    maxNodeGroupShareAffected: z.number().gt(0).max(1),
    incidentWindowMinutes: z.number().int().min(1),
    nodeCooldownMinutes: z.number().int().min(0),
  }),
  killSwitchParameterName: z.string(),
  /** NODE_COMMANDS key → SSM document name. */
  documents: z.object({
    probeNode: z.string(),
    repairPauseImage: z.string(),
    collectLogs: z.string(),
    restartRuntime: z.string(),
  }),
  historyRetentionDays: z.number().int().min(1),
  evidenceBucket: z.string(),
  tableName: z.string(),
  /** Sandbox image repositories trusted beyond the EKS pause repositories and localhost/kubernetes/pause. */
  trustedSandboxImages: z.array(z.string()).optional(),
});

export type WorkflowConfig = z.output<typeof workflowConfigSchema>;

export function parseWorkflowConfig(raw: string | undefined): WorkflowConfig {
  return workflowConfigSchema.parse(JSON.parse(raw ?? '{}'));
}

/** The incident as the ingest path starts the workflow with it. */
export const incidentInputSchema = z.object({
  incidentId: z.string(),
  incidentKey: z.string(),
  class: z.enum(FAILURE_CLASSES),
  kind: z.enum(['failure', 'change']).default('failure'),
  cluster: z.string(),
  scope: z.string(),
  scopeValue: z.string(),
  cause: z.string(),
  entities: z.record(z.string(), z.string()).default({}),
  firstSeen: z.string(),
  samples: z.array(z.string()).default([]),
  pods: z.array(z.string()).default([]),
});

export type IncidentInput = z.output<typeof incidentInputSchema>;
