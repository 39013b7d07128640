import { asStuckPod } from '../../core/detect/stuck-pods.js';
import type { ReportEventsAction } from '../../core/door/action-request.js';
import { resolveNode } from '../readers/account/node-context.js';
import { summaryOf } from '../runtime/stored-summary.js';
import { eventsClient, type WriteBackResult } from './event-writer.js';
import type { ActOutcome, DoorContext, Prepared } from './executor.js';
import { reportEvents } from './report-events.js';

/**
 * report-events in the door: the run's events on its node and the node's stuck pods. The targets are
 * the door's own reading: the node the summary names, corroborated by EC2 (in the incident's cluster,
 * the same private DNS name), and the pods the Kubernetes API lists stuck on it now. Written without
 * approval, under the kill switch, capped per incident by the plan (event-series.ts); it reserves no
 * node-action slot and is no node action in the history.
 */
export function reportEventsKind(a: ReportEventsAction, ctx: DoorContext): Prepared {
  const { deps, request } = ctx;
  const uri = `s3://${deps.config.evidenceBucket}/${a.summaryJson}`;
  const act = async (): Promise<ActOutcome> => {
    try {
      const summary = await summaryOf(uri, { s3: deps.s3, evidenceBucket: deps.config.evidenceBucket, warn: () => {} });
      const api = await deps.cluster(request.incident.cluster);
      const r = await reportEvents(
        {
          incidentId: request.incident.id,
          class: request.incident.class,
          cluster: request.incident.cluster,
          execution: request.execution,
          summaryUri: uri,
          targets: await targetsOf(summary, ctx),
        },
        { events: eventsClient(api), summary: async () => summary, now: deps.now },
      );
      return {
        result: { outcome: r.failed.length && !written(r) ? 'failed' : 'done', reason: describe(r) },
        changed: false,
      };
    } catch (e) {
      return {
        result: { outcome: 'failed', reason: `report-events: ${(e as Error).name}: ${(e as Error).message}` },
        changed: false,
      };
    }
  };
  return {
    diff: [],
    cause: async () => ({ status: 'holds', reason: 'the events report what the run found and did' }),
    cooldowns: [],
    dryRun: async () => ({ result: { outcome: 'dry-run', reason: 'would write the incident events' }, changed: false }),
    act,
  };
}

const written = (r: WriteBackResult) => r.created.length + r.series.length;

function describe(r: WriteBackResult): string {
  const why = new Map<string, number>();
  for (const s of r.suppressed) why.set(s.why, (why.get(s.why) ?? 0) + 1);
  const parts = [
    `${r.created.length} events created`,
    `${r.series.length} series continued`,
    ...[...why].map(([w, n]) => `${n} not written (${w})`),
    ...(r.failed.length ? [`${r.failed.length} failed: ${r.failed[0].error}`] : []),
  ];
  return `report-events: ${parts.join(', ')}`;
}

/** The node the summary names, as EC2 confirms it, and the pods stuck on it now (API objects). */
async function targetsOf(summary: unknown, ctx: DoorContext) {
  const node = summaryNode(summary);
  if (!node) return { pods: [] };
  const { deps, request } = ctx;
  const resolved = await resolveNode(deps.aws.ec2, deps.aws.iam, node.instanceId, request.incident.cluster);
  const name = resolved.privateDnsName;
  if (!name || (node.privateDnsName && node.privateDnsName !== name)) return { pods: [] };
  const api = await deps.cluster(request.incident.cluster);
  const pods = (await api.podsOnNode(name))
    .map(asStuckPod)
    .filter((p) => p !== undefined && p.nodeName === name)
    .map((p) => ({ namespace: p?.namespace ?? '', name: p?.name ?? '', ...(p?.uid ? { uid: p.uid } : {}) }));
  return { node: { name }, pods };
}

function summaryNode(s: unknown): { instanceId: string; privateDnsName?: string } | undefined {
  if (!s || typeof s !== 'object' || !('node' in s) || !s.node || typeof s.node !== 'object') return undefined;
  const n = s.node as { instanceId?: unknown; privateDnsName?: unknown };
  return typeof n.instanceId === 'string'
    ? {
        instanceId: n.instanceId,
        ...(typeof n.privateDnsName === 'string' ? { privateDnsName: n.privateDnsName } : {}),
      }
    : undefined;
}
