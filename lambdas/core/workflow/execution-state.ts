import * as z from 'zod/mini';
import { plannedRequestSchema, SLOTS } from '../door/action-request.js';
import { doorStateSchema, findingSchema } from '../door/state.js';
import { PLANNED_ACTION_IDS } from '../policy/policy.js';
import { incidentInputSchema } from './workflow-config.js';
import '../text/zod-english.js';

/**
 * The incident workflow's execution state, defined once, as schemas: `lib/` builds every JSONPath
 * from the type ({@link at}), the functions parse what they read with the schema (unknown fields are
 * dropped, nothing is cast). What a step writes is named here with its shape, and so are the errors
 * a Catch names.
 */

export type {
  ApprovalAnswer,
  CommandOutcome,
  DoorAsk,
  DoorCall,
  DoorResult,
  DoorRun,
  DoorState,
  PendingCommand,
} from '../door/state.js';
export { DOOR_OUTCOMES, DOOR_RETURNS, DOOR_STEPS, type DoorReturn } from '../door/state.js';

/** Errors the workflow's functions throw by name and the graph catches by name. */
export const WORKFLOW_ERRORS = {
  /** Resolve node: no EC2 instance behind the node the incident names. */
  nodeNotFound: 'NodeNotFoundError',
  /** Resolve node: the instance's tags put it in another cluster. */
  nodeNotInCluster: 'NodeNotInClusterError',
  /** Step Functions: a task (the approval wait) ran past its timeout. */
  timeout: 'States.Timeout',
} as const;

const text = (max = 4_000) => z.string().check(z.maxLength(max));
const list = <T extends z.core.SomeType>(item: T, max: number) => z.readonly(z.array(item).check(z.maxLength(max)));

/** The error a Task reports (Step Functions' Catch result). */
export const taskErrorSchema = z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) });

/** The node the workflow resolved from EC2 (never from log text); empty when none. */
export const nodeFactsSchema = z.object({
  instanceId: z.optional(text(32)),
  privateDnsName: z.optional(text(256)),
  clusterName: z.optional(text(128)),
  nodegroupName: z.optional(text(128)),
  instanceType: z.optional(text(64)),
  architecture: z.optional(text(32)),
  subnetId: z.optional(text(64)),
  vpcId: z.optional(text(64)),
  availabilityZone: z.optional(text(64)),
  securityGroupIds: z.optional(list(text(64), 20)),
  privateIp: z.optional(text(64)),
  amiId: z.optional(text(64)),
  instanceProfileArn: z.optional(text(2_048)),
  roleName: z.optional(text(512)),
  roleArn: z.optional(text(2_048)),
});

export const CHECK_GROUPS = ['iam', 'ecr', 'network', 'eks', 'changes'] as const;
export type CheckGroupName = (typeof CHECK_GROUPS)[number];

/** "Open incident": the lock, the gate as read at the start, what to diagnose. */
export const openResultSchema = z.object({
  duplicate: z.boolean(),
  gate: z.object({
    killSwitch: z.boolean(),
    killSwitchReadable: z.boolean(),
    optedIn: z.boolean(),
    mode: z.string(),
  }),
  history: z.object({ nodeActionsLastHour: z.number(), lastNodeActionAt: z.nullable(z.number()) }),
  /** Instance id or node name to resolve, null when the incident is not about one node. */
  node: z.nullable(z.string()),
  checks: z.record(z.enum(CHECK_GROUPS), z.boolean()),
  probe: z.boolean(),
  region: z.string(),
  openedAt: z.number(),
});

/** A pod the Kubernetes inspection found stuck (an API object's identity, never text). */
export const podRefSchema = z.object({
  namespace: text(253),
  name: text(253),
  uid: z.optional(text(64)),
});

const findings = list(findingSchema, 200);

/** "Diagnose": each branch by name (the account check groups and the Kubernetes inspection). */
export const diagnosisSchema = z.object({
  iam: z.object({ findings }),
  ecr: z.object({ findings }),
  network: z.object({ findings }),
  eks: z.object({ findings }),
  changes: z.object({ findings }),
  kubernetes: z.object({ findings, stuckPods: list(podRefSchema, 50) }),
});

/** "Watch pods start": the pods that were stuck, watched after the repair. */
export const podVerdictSchema = z.object({
  started: list(z.object({ pod: text(320), afterSeconds: z.number() }), 50),
  stillStuck: list(text(320), 50),
  gone: list(text(320), 50),
  verified: z.boolean(),
  windowSeconds: z.number(),
});

/** "Check repair": the verdict on the repair. */
export const verificationSchema = z.object({
  verified: z.boolean(),
  reason: text(),
  nextStep: text(),
  /** The node is healthy again but the watched pods stay stuck (an eviction may finish the repair). */
  podsStillStuck: z.boolean(),
});

/** "Watch recreated pods": the pods the controllers created in place of the evicted ones. */
export const replacementVerdictSchema = z.object({
  replacements: list(
    z.object({
      evicted: text(320),
      pod: z.optional(text(320)),
      node: z.optional(text(256)),
      runningAfterSeconds: z.optional(z.number()),
    }),
    50,
  ),
  verified: z.boolean(),
  windowSeconds: z.number(),
});

/** One planned action of the policy (lambdas/core/policy/policy.ts PlannedAction), for the summary. */
export const plannedActionSchema = z.object({
  id: z.enum(PLANNED_ACTION_IDS),
  tier: z.enum(['in-place', 'disruptive', 'account', 'cluster']),
  description: text(1_000),
  document: z.optional(z.enum(['repairPauseImage', 'collectLogs', 'restartRuntime'])),
  parameters: z.optional(z.record(z.string(), z.string())),
  disposition: z.enum(['auto', 'approve', 'recommend', 'blocked']),
  reason: text(),
});

const drainPlanSchema = z.object({
  id: z.literal('drain-node'),
  description: text(1_000),
  disposition: z.enum(['approve', 'recommend', 'blocked']),
  reason: text(),
  replacement: z.object({ nodeAutoRepair: z.nullable(z.boolean()), text: text() }),
});

const evictPlanSchema = z.object({
  id: z.literal('evict-stuck-pods'),
  description: text(1_000),
  disposition: z.enum(['auto', 'approve', 'dry-run', 'recommend', 'blocked']),
  reason: text(),
});

/** "Decide": the plan, with the requests the door runs (by slot). */
export const planSchema = z.object({
  decision: z.enum(['act', 'approve', 'recommend', 'blocked']),
  actions: list(plannedActionSchema, 20),
  reasons: list(text(), 50),
  recommendations: list(text(), 50),
  findings,
  /** What the door is asked to run, by slot (absent: not planned, recommended or blocked). */
  requests: z.partialRecord(z.enum(SLOTS), plannedRequestSchema),
  /** The drain after a failed runtime restart (its wording for the approval and the summary), or null. */
  drain: z.nullable(drainPlanSchema),
  /** The eviction after a verified repair, or null. */
  evict: z.nullable(evictPlanSchema),
});

/** "Summarize" / "Record failure". */
export const summaryOutputSchema = z.object({
  subject: text(),
  message: text(200_000),
  outcome: text(),
  /** The summary JSON's key in the evidence bucket (what the events write-back links and reads). */
  summaryJson: z.optional(text()),
});

/** The whole execution state. */
export const executionStateSchema = z.object({
  ...incidentInputSchema.shape,
  /** "Start": the execution's ARN and start time (context object). */
  execution: z.object({ arn: z.string().check(z.minLength(1)), startedAt: z.optional(z.string()) }),
  open: z.optional(openResultSchema),
  node: z.optional(nodeFactsSchema),
  /** The Catch of "Resolve node". */
  resolveError: z.optional(taskErrorSchema),
  diagnosis: z.optional(diagnosisSchema),
  plan: z.optional(planSchema),
  door: z.optional(doorStateSchema),
  // verdict null: none of the pods the incident named was stuck, nothing watched (the probe alone verifies).
  podSignal: z.optional(
    z.object({ watched: z.optional(z.boolean()), verdict: z.optional(z.nullable(podVerdictSchema)) }),
  ),
  podSignalError: z.optional(taskErrorSchema),
  verification: z.optional(verificationSchema),
  replacements: z.optional(z.object({ verdict: z.optional(replacementVerdictSchema) })),
  replacementsError: z.optional(taskErrorSchema),
  summary: z.optional(summaryOutputSchema),
  error: z.optional(taskErrorSchema),
  recordError: z.optional(taskErrorSchema),
  notifyError: z.optional(taskErrorSchema),
});

export type ExecutionState = z.output<typeof executionStateSchema>;
export type NodeFacts = z.output<typeof nodeFactsSchema>;
export type OpenResult = z.output<typeof openResultSchema>;
export type Diagnosis = z.output<typeof diagnosisSchema>;
export type PodRef = z.output<typeof podRefSchema>;
export type PodVerdict = z.output<typeof podVerdictSchema>;
export type Verification = z.output<typeof verificationSchema>;
export type ReplacementVerdict = z.output<typeof replacementVerdictSchema>;
export type PlanOutput = z.output<typeof planSchema>;
export type TaskError = z.output<typeof taskErrorSchema>;
export type SummaryOutput = z.output<typeof summaryOutputSchema>;

type Keys<T> = T extends readonly unknown[] ? never : T extends object ? keyof T & string : never;

/** The field paths of `T`, as tuples of keys. */
export type FieldPath<T> = T extends object
  ? { [K in Keys<T>]: [K] | [K, ...FieldPath<NonNullable<T[K]>>] }[Keys<T>]
  : never;

/** The JSONPath of a field of the execution state, checked against its type: `at('door', 'last', 'outcome')`. */
export function at<P extends FieldPath<ExecutionState>>(...path: P): string {
  return `$.${path.join('.')}`;
}
