import * as z from 'zod/mini';
import '../text/zod-english.js';

/**
 * Each function's environment, one schema per handler of lambdas/handlers: the handler parses its
 * schema once at start-up (lambdas/aws/runtime/environment.ts) and fails there, naming the variable,
 * instead of running on `?? ''` fallbacks; lib/ builds each function's environment and refuses at synth
 * a function whose variables are not exactly its handler's schema (lib/constructs/pod-doctor-function.ts).
 */

const text = () => z.string().check(z.minLength(1));
const positiveInteger = () => z.coerce.number().check(z.int(), z.minimum(1));
const ACCOUNT_ID = /^\d{12}$/;

/** A JSON value in a variable, parsed and validated at start-up; `fallback` when the variable is unset. */
const json = <T>(schema: z.ZodMiniType<T>, fallback: string) =>
  z.pipe(
    z._default(z.string(), fallback),
    z.transform((s: string) => schema.parse(JSON.parse(s))),
  );

/** A copy placed in a VPC: that VPC's id; it serves the clusters of that VPC only (contract/cluster-reach.ts). */
const REACH = { CLUSTER_REACH: z.optional(z.string().check(z.regex(/^vpc-[0-9a-f]{8,17}$/))) };

/** Set by Lambda itself in every function (never by lib/). */
export const LAMBDA_VARIABLES = { AWS_REGION: text() };

/** Set by lib/ on every function (PodDoctorFunction): Powertools' service and namespace, source maps. */
export const COMMON_VARIABLES = {
  POWERTOOLS_SERVICE_NAME: text(),
  POWERTOOLS_METRICS_NAMESPACE: text(),
  NODE_OPTIONS: text(),
};

/**
 * The variables that locate a function's configuration in the configuration store (the construct
 * `ConfigStore` sets them, lambdas/aws/runtime/config-store.ts reads them).
 */
export const CONFIG_VARIABLES = { table: 'CONFIG_TABLE_NAME', version: 'CONFIG_VERSION' } as const;
const CONFIG = { CONFIG_TABLE_NAME: text(), CONFIG_VERSION: text() };

/**
 * The variables an IncidentStore is built from: every function that opens incidents (ingest, the
 * Kubernetes sweep and events reader, the fleet intake) reads them alike.
 */
export const incidentStoreVariables = {
  INCIDENT_TABLE_NAME: text(),
  INCIDENT_WINDOW_MINUTES: positiveInteger(),
  HISTORY_RETENTION_DAYS: positiveInteger(),
};

/**
 * A fleet hub's functions that read or act in member accounts (the door, the node's resolution, the
 * account check groups): the fleet's name (role names, external id) and the hub's own account.
 * Absent: a single-account deployment.
 */
const FLEET = { FLEET_NAME: z.optional(text()), FLEET_HUB_ACCOUNT: z.optional(z.string().check(z.regex(ACCOUNT_ID))) };

const INGEST = {
  ...incidentStoreVariables,
  ...CONFIG,
  EVIDENCE_BUCKET_NAME: text(),
  WORKFLOW_ARN: text(),
};

/** What each handler's function is given, by handler name (the file name in lambdas/handlers). */
export const HANDLER_VARIABLES = {
  'approval-callback': { ...CONFIG, APPROVAL_SECRET_ARN: text() },
  'approval-chat': { ...CONFIG, APPROVAL_SECRET_ARN: text() },
  'approval-key-rotation': {},
  'approval-request': {
    ...CONFIG,
    APPROVAL_SECRET_ARN: text(),
    TOPIC_ARN: text(),
    CALLBACK_URL: text(),
    APPROVAL_TIMEOUT_MINUTES: positiveInteger(),
  },
  'check-changes': { CHANGE_TABLE_NAME: text() },
  'check-ecr': { CHANGE_TABLE_NAME: text(), ...FLEET },
  'check-eks': FLEET,
  'check-iam': FLEET,
  'check-network': FLEET,
  'command-wait': CONFIG,
  'config-writer': {},
  decide: CONFIG,
  door: { ...CONFIG, ...FLEET },
  'door-remedies': { ...CONFIG, ...FLEET },
  'fleet-intake': {
    ...INGEST,
    /** The hub's member accounts and their Regions (JSON). */
    FLEET_MEMBERS: json(z.array(z.object({ account: z.string(), regions: z.array(z.string()) })), '[]'),
  },
  ingest: {
    ...INGEST,
    /** The topic of the one notice per cluster and hour that says what the limits dropped. */
    TOPIC_ARN: text(),
  },
  kubernetes: {},
  'kubernetes-events': {
    ...INGEST,
    /** Seconds each invocation reads (the function's timeout leaves a margin after it). */
    WATCH_SECONDS: z.coerce.number().check(z.int(), z.minimum(5), z.maximum(840)),
    /** The topic of the one notice per cluster, rank and hour that says what the limits dropped (absent: none). */
    TOPIC_ARN: z.optional(text()),
    ...REACH,
  },
  'kubernetes-sweep': { ...incidentStoreVariables, ...CONFIG, WORKFLOW_ARN: text(), ...REACH },
  'log-group-prerequisites': {},
  notices: { EVIDENCE_BUCKET: text() },
  'open-incident': CONFIG,
  'resolve-node': FLEET,
  'signal-check': { ...CONFIG, INCIDENT_TABLE_NAME: text(), TOPIC_ARN: text() },
  /**
   * A spoke ingest: its account, and the log group → cluster map and trusted sandbox images of its own
   * clusters (a spoke has no configuration store: its stack is its configuration).
   */
  'spoke-ingest': {
    SPOKE_ACCOUNT: z.string().check(z.regex(ACCOUNT_ID)),
    LOG_GROUP_CLUSTERS: json(z.record(z.string(), z.string()), '{}'),
    TRUSTED_SANDBOX_IMAGES: json(z.array(z.string()), '[]'),
  },
  summarize: CONFIG,
  verify: CONFIG,
} satisfies Record<string, Record<string, z.ZodMiniType>>;

/** A handler of lambdas/handlers, by its file name. */
export type HandlerName = keyof typeof HANDLER_VARIABLES;

/** The whole schema a handler parses at start-up: what Lambda sets, what lib/ sets on all, and its own. */
export function environmentSchema<H extends HandlerName>(handler: H) {
  return z.object({ ...LAMBDA_VARIABLES, ...COMMON_VARIABLES, ...HANDLER_VARIABLES[handler] });
}

/** The parsed environment of a handler. */
export type HandlerEnvironment<H extends HandlerName> = z.output<ReturnType<typeof environmentSchema<H>>>;

/** Variables whose value may be left out (a default applies). */
function optionalKeys(shape: Record<string, z.ZodMiniType>): Set<string> {
  return new Set(Object.entries(shape).flatMap(([k, s]) => (s.safeParse(undefined).success ? [k] : [])));
}

/**
 * What is wrong with a function's variables (as lib/ built them) for `handler`: a variable its schema
 * requires is missing, or one it does not know is set. Empty when they match.
 */
export function environmentProblems(handler: string, variables: readonly string[]): string[] {
  if (!Object.hasOwn(HANDLER_VARIABLES, handler)) return [`no environment schema for handler "${handler}"`];
  const shape: Record<string, z.ZodMiniType> = { ...COMMON_VARIABLES, ...HANDLER_VARIABLES[handler as HandlerName] };
  const optional = optionalKeys(shape);
  const missing = Object.keys(shape).filter((k) => !optional.has(k) && !variables.includes(k));
  const unknown = variables.filter((k) => !Object.hasOwn(shape, k));
  return [
    ...missing.map((k) => `${k} is missing (the ${handler} handler requires it)`),
    ...unknown.map((k) => `${k} is set, but the ${handler} handler does not read it`),
  ];
}
