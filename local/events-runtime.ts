import { IncidentBudget } from '../lambdas/aws/ingest/incident-budget.js';
import { IncidentStore } from '../lambdas/aws/ingest/incident-store.js';
import { TopicNotices } from '../lambdas/aws/ingest/topic-notices.js';
import { WorkflowStarter } from '../lambdas/aws/ingest/workflow-starter.js';
import {
  type ClusterEventsOutcome,
  type EventsDeps,
  readAllClusters,
} from '../lambdas/aws/kubernetes/events-service.js';
import { EventsStateStore } from '../lambdas/aws/kubernetes/events-state.js';
import { ClusterApi } from '../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../lambdas/aws/readers/kubernetes/token.js';
import { RejectStore } from '../lambdas/aws/runtime/evidence-store.js';
import { CLUSTER_REACH_VARIABLE, clustersServed } from '../lambdas/core/contract/cluster-reach.js';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from '../lambdas/core/incident/ingest-limits.js';
import { deployConfig, loadConfigAs } from './config-store.js';
import type { LocalTable } from './dynamo.js';
import { asRole } from './guard.js';
import { TemplateAuthorizer } from './iam.js';
import { guardedDocumentClient, guardedS3, type LocalStarts, localStarts, localTopic } from './ingest-runtime.js';
import type { KubeApiServer } from './kube-api-server.js';
import { type Placement, placementOfId } from './network.js';
import { idsOfType, REGION, type ResolvedTemplate } from './template.js';

export interface LocalEvents {
  /** One scheduled invocation: every configured cluster read for the watch budget. */
  invoke(requestId: string): Promise<ClusterEventsOutcome[]>;
  readonly starts: LocalStarts;
  readonly authz: TemplateAuthorizer;
  /** Objects the function put into the evidence bucket (key → body): rejected and dropped events. */
  readonly objects: Map<string, string>;
  /** Notices the function published (what the limits dropped, per cluster, rank and hour). */
  readonly notices: { subject?: string; message?: string }[];
}

export interface LocalEventsOptions {
  /** The cluster's API server (the shipped RBAC; the reader's access entry maps to group pod-doctor). */
  readonly server: KubeApiServer;
  readonly endpoint: string;
  /**
   * The endpoint as a reader placed so is led to (LocalCluster.endpointFor: the API server, or no
   * answer from outside its network). @default `endpoint` for every reader
   */
  readonly endpointFor?: (placement: Placement) => string;
  /** The watch budget of each invocation (the deployed one reads 50 s). @default the template's WATCH_SECONDS */
  readonly watchSeconds?: number;
  readonly now?: () => number;
  /** Over the limits of the template's configuration document. */
  readonly limits?: Partial<IngestLimits>;
}

/**
 * The events reader as deployed: its role (every DynamoDB, S3 and StartExecution call authorised
 * against the template), its environment (window, table), its configuration read from the table as
 * deployed (clusters, trusted sandbox images), against a local API server.
 */
export function localEvents(template: ResolvedTemplate, table: LocalTable, o: LocalEventsOptions): LocalEvents {
  const authz = new TemplateAuthorizer(template);
  const ddb = guardedDocumentClient(table, authz);
  const starts = localStarts(authz);
  const { s3, objects } = guardedS3(authz);
  const { sns, notices } = localTopic(template, authz);
  // Every deployed reader runs on its schedule: the one outside any VPC and each VPC's copy (issue 36).
  const readers = idsOfType(template, 'AWS::Lambda::Function').filter(
    (id) => template.Resources[id].Metadata?.PodDoctorHandler === 'kubernetes-events',
  );
  if (readers.length === 0) throw new Error('no kubernetes-events function in the template');
  const tokens = new EksTokenCache({ accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' });
  /** The deps as the deployed function builds them: its clusters and trusted images from the stored configuration. */
  const deps = async (id: string): Promise<EventsDeps> => {
    const fn = template.Resources[id].Properties ?? {};
    const role = String(fn.Role);
    const env = (fn.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {};
    const windowMs = Number(env.INCIDENT_WINDOW_MINUTES) * 60_000;
    const endpoint = o.endpointFor?.(placementOfId(template, id)) ?? o.endpoint;
    const config = await loadConfigAs(role, await deployConfig(template, table, authz), table, authz);
    const limits = { ...DEFAULT_INGEST_LIMITS, ...config.ingestLimits, ...o.limits };
    return {
      budget: new IncidentBudget(ddb, env.INCIDENT_TABLE_NAME, limits),
      limits,
      notices: env.TOPIC_ARN ? new TopicNotices(sns, env.TOPIC_ARN) : undefined,
      clusters: clustersServed(config.clusters, env[CLUSTER_REACH_VARIABLE]),
      api: async (name) =>
        new ClusterApi({ name, region: REGION, endpoint, certificateAuthorityData: o.server.caData }, tokens),
      state: new EventsStateStore(ddb, env.INCIDENT_TABLE_NAME),
      incidents: new IncidentStore(ddb, {
        tableName: env.INCIDENT_TABLE_NAME,
        windowMs,
        retentionDays: Number(env.HISTORY_RETENTION_DAYS),
      }),
      workflow: new WorkflowStarter(starts.sfn, env.WORKFLOW_ARN),
      rejects: new RejectStore(s3, env.EVIDENCE_BUCKET_NAME),
      now: o.now ?? Date.now,
      windowMs,
      trustedSandboxImages: config.trustedSandboxImages ?? [],
      reader: { watchSeconds: o.watchSeconds ?? Number(env.WATCH_SECONDS), flushMs: 100 },
    };
  };
  return {
    starts,
    authz,
    objects,
    notices,
    invoke: async (requestId) => {
      const outcomes: ClusterEventsOutcome[] = [];
      for (const id of readers) {
        const role = String(template.Resources[id].Properties?.Role);
        outcomes.push(...(await asRole(role, async () => readAllClusters(await deps(id), requestId))));
      }
      return outcomes;
    },
  };
}
