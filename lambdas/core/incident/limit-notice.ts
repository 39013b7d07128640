import { outboundFields } from '../text/outbound.js';
import { snsSubject } from '../text/sns-subject.js';
import type { IngestLimits } from './ingest-limits.js';

/** One candidate a limit kept from evaluation (see DroppedCandidate in lambdas/aws/ingest/open-incidents.ts). */
export interface DroppedLine {
  readonly cluster: string;
  readonly class: string;
  readonly count: number;
  readonly limit: string;
  /** The rank of the signals dropped (provenance.ts); absent: node. */
  readonly rank?: string;
}

/**
 * The one notice of a cluster's hour in which limits kept incidents from evaluation: how many, of
 * which classes, which limits, where they are kept, and that later drops of the hour are only counted.
 * Every field is outbound text (one line, no secrets).
 */
export function limitNotice(
  cluster: string,
  dropped: readonly DroppedLine[],
  where: { readonly keptAt?: string; readonly limits: IngestLimits },
): { subject: string; message: string } {
  const c = outboundFields({ cluster, dropped, keptAt: where.keptAt ?? '' });
  const byClass = new Map<string, { candidates: number; lines: number }>();
  for (const d of c.dropped) {
    const x = byClass.get(d.class) ?? { candidates: 0, lines: 0 };
    byClass.set(d.class, { candidates: x.candidates + 1, lines: x.lines + d.count });
  }
  const limits = [...new Set(c.dropped.map((d) => d.limit))].join(', ');
  const rank = c.dropped[0]?.rank ?? 'node';
  const of = rank === 'node' ? '' : ` (${rank}-rank signals)`;
  const l = where.limits;
  const message = [
    `pod-doctor did not evaluate ${c.dropped.length} incident candidate(s)${of} on cluster ${c.cluster}: limits reached (${limits}).`,
    '',
    'BY CLASS',
    ...[...byClass].map(([cls, n]) => `  ${cls}: ${n.candidates} candidate(s), ${n.lines} line(s)`),
    '',
    'LIMITS',
    `  ${l.maxIncidentsPerDelivery} new incidents and executions per delivery and rank; per cluster and hour ${l.maxIncidentsPerClusterPerHour} incidents, ${l.maxExecutionsPerClusterPerHour} executions (AWS and node rank each)`,
    `  tenant rank (Kubernetes Event objects, tenant containers' lines): opens only when corroborated by the pod's kubelet-written status; ${l.maxTenantIncidentsPerNamespacePerHour} incidents and executions per namespace and hour, ${l.maxTenantIncidentsPerClusterPerHour} per cluster and hour, ${l.maxTenantSignalsPerNamespacePerHour} signals corroborated per namespace and hour`,
    '',
    `KEPT        ${c.keptAt || '(not kept: no evidence bucket)'}`,
    'LATER       further drops this hour are kept and counted (metric IncidentsDropped), without another notice',
    'NEXT STEP   the incidents opened first (most lines first) show the main cause; a flood of one-line candidates is a workload writing failure lines in bulk',
  ].join('\n');
  return {
    subject: snsSubject(
      `[pod-doctor] limits reached on ${c.cluster}${of}: ${c.dropped.length} candidate(s) not evaluated`,
    ),
    message,
  };
}
