import { createHash } from 'node:crypto';
import { CLASS_SCOPE, type FailureClass, type IncidentScope } from '../contract/failure-classes.js';
import { orderSignals, type Signal } from '../contract/signals.js';
import type { Entities } from '../detect/entities.js';
import { outboundFields, outboundText } from '../text/outbound.js';
import { type Corroboration, defaultRank, type Rank, tenantBudgetNamespace } from './provenance.js';

/** One classified failure (or breaking change) with where and when it was seen. */
export interface Occurrence {
  readonly class: Exclude<FailureClass, 'unknown'>;
  readonly kind: 'failure' | 'change';
  readonly cause: string;
  readonly signature: string | null;
  readonly cluster: string;
  readonly entities: Entities;
  /** Epoch milliseconds. */
  readonly at: number;
  /** The evidence line (truncated). */
  readonly evidence: string;
  /** Where it was seen (log group kind, Kubernetes events, CloudTrail, the sweep). */
  readonly signal: Signal;
  /**
   * Where each entity came from when the source says (a Kubernetes event: its involvedObject, the
   * reporting kubelet's host, its message; the Node object). Absent: the log path's rules (node and
   * instance from the record envelope, the rest from the text).
   */
  readonly factSources?: FactSources;
  /** Who could have written it (provenance.ts). @default by signal: defaultRank */
  readonly rank?: Rank;
  /** The higher-rank fact that corroborated a tenant-rank occurrence (absent: none). */
  readonly corroboratedBy?: Corroboration;
  /** Tenant rank: the namespace whose budget it spends (absent: the pod's namespace, or `-`). */
  readonly tenantNamespace?: string;
}

/** Entity → where it was read (e.g. `node: 'event-source'`). */
export type FactSources = Readonly<Partial<Record<keyof Entities, string>>>;

/** Occurrences of one (cluster, scope, class), folded together. */
export interface IncidentCandidate {
  readonly key: string;
  readonly cluster: string;
  readonly class: Exclude<FailureClass, 'unknown'>;
  readonly kind: 'failure' | 'change';
  readonly scope: IncidentScope;
  readonly scopeValue: string;
  readonly cause: string;
  readonly count: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
  /** Entities of the first occurrence (node, image, subnet ...). */
  readonly entities: Entities;
  /** Where the first occurrence's entities came from, when its source says. */
  readonly factSources?: FactSources;
  /** Distinct pods seen (at most MAX_PODS). */
  readonly pods: readonly string[];
  /** Distinct evidence lines (at most MAX_SAMPLES). */
  readonly samples: readonly string[];
  /** The account of a fleet member the incident is in (absent: the hub's own account). */
  readonly account?: string;
  /** The Region of a fleet member the incident is in (absent: the hub's own Region). */
  readonly region?: string;
  /** The signals its occurrences came from, in contract order. */
  readonly signals: readonly Signal[];
  /**
   * Who could have written its occurrences: a candidate folds occurrences of one rank only (and for
   * tenant rank of one namespace), so a flood of one rank never counts as another's.
   * @default 'node' (a candidate from before ranks)
   */
  readonly rank?: Rank;
  /** Tenant rank: what corroborated every occurrence folded in (absent: not corroborated). */
  readonly corroboratedBy?: Corroboration;
  /** Tenant rank: the namespace whose budget the candidate spends. */
  readonly tenantNamespace?: string;
}

/** The rank of a candidate (node for one from before ranks). */
export function candidateRank(c: Pick<IncidentCandidate, 'rank'>): Rank {
  return c.rank ?? 'node';
}

/** The rank, namespace and corroboration of an occurrence as its candidate carries them. */
function provenanceOf(o: Occurrence): Pick<IncidentCandidate, 'rank' | 'corroboratedBy' | 'tenantNamespace'> {
  const rank = o.rank ?? defaultRank(o.signal);
  if (rank !== 'tenant') return { rank };
  return {
    rank,
    tenantNamespace: tenantBudgetNamespace(o.tenantNamespace ?? o.entities.namespace),
    ...(o.corroboratedBy ? { corroboratedBy: o.corroboratedBy } : {}),
  };
}

export const MAX_SAMPLES = 5;
export const MAX_PODS = 20;
export const MAX_EVIDENCE_CHARS = 2000;

function repository(image: string): string {
  const noDigest = image.split('@')[0];
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/** What an incident of this class is about: a node, a subnet, an image or registry, or the cluster. */
export function incidentScope(
  cls: Exclude<FailureClass, 'unknown'>,
  e: Entities,
): { scope: IncidentScope; value: string } {
  const node = e.instanceId ?? e.node;
  switch (CLASS_SCOPE[cls]) {
    case 'node':
      return node ? { scope: 'node', value: node } : { scope: 'cluster', value: 'unknown-node' };
    case 'subnet':
      if (e.subnetId) return { scope: 'subnet', value: e.subnetId };
      // The subnet is resolved later from the node; until then the node stands for it.
      return node ? { scope: 'node', value: node } : { scope: 'cluster', value: 'unknown-subnet' };
    case 'image': {
      if (cls === 'registry-unreachable' || cls === 'registry-tls' || cls === 'rate-limited') {
        return { scope: 'image', value: e.registryHost ?? 'unknown-registry' };
      }
      if (cls === 'registry-auth') return { scope: 'image', value: e.image ? repository(e.image) : 'unknown-image' };
      return { scope: 'image', value: e.image ?? 'unknown-image' };
    }
    default:
      return { scope: 'cluster', value: '-' };
  }
}

/** Key parts longer than this many UTF-8 bytes are replaced by their hash (DynamoDB keys: 2 KB). */
export const MAX_KEY_PART_BYTES = 256;

function keyPart(v: string): string {
  return Buffer.byteLength(v) <= MAX_KEY_PART_BYTES ? v : `sha256:${createHash('sha256').update(v).digest('hex')}`;
}

/** Stable incident key of (cluster, scope, class); at most about 600 bytes whatever the parts. */
export function incidentKey(cluster: string, cls: FailureClass, scope: IncidentScope, value: string): string {
  return `${keyPart(cluster)}|${scope}:${keyPart(value)}|${cls}`;
}

/** A short, stable, name-safe id for an incident opened at `firstSeen` (Step Functions execution name). */
export function incidentId(key: string, firstSeen: number): string {
  const h = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return `${h}-${Math.floor(firstSeen / 1000)}`;
}

/**
 * Folds occurrences into one candidate per incident key, in first-seen order. Every text a candidate
 * keeps (cluster, entities, cause, pods, evidence) is made outbound text: candidates are what the
 * incident table, the execution input and every summary hold, whichever source (log line, CloudTrail
 * event, Kubernetes sweep) produced them. Evidence is cleaned only when kept (at most MAX_SAMPLES).
 */
export function aggregate(occurrences: readonly Occurrence[]): IncidentCandidate[] {
  const byKey = new Map<
    string,
    { c: IncidentCandidate; pods: Set<string>; samples: Set<string>; signals: Set<Signal> }
  >();
  for (const o of occurrences) {
    const cluster = outboundText(o.cluster);
    const entities = outboundFields(o.entities);
    const { scope, value } = incidentScope(o.class, entities);
    const key = incidentKey(cluster, o.class, scope, value);
    const provenance = provenanceOf(o);
    // One candidate per key and provenance: a rank's occurrences never count as (or push out) another's.
    const group = `${key}\u0000${provenance.rank}\u0000${provenance.tenantNamespace ?? ''}\u0000${provenance.corroboratedBy ?? ''}`;
    const pod = entities.pod ? `${entities.namespace ?? ''}/${entities.pod}`.replace(/^\//, '') : undefined;
    const evidence = () => outboundText(o.evidence).slice(0, MAX_EVIDENCE_CHARS);
    const seen = byKey.get(group);
    if (!seen) {
      byKey.set(group, {
        c: {
          key,
          cluster,
          class: o.class,
          kind: o.kind,
          scope,
          scopeValue: value,
          cause: outboundText(o.cause),
          count: 1,
          firstSeen: o.at,
          lastSeen: o.at,
          entities,
          ...(o.factSources ? { factSources: o.factSources } : {}),
          pods: [],
          samples: [],
          signals: [],
          ...provenance,
        },
        pods: new Set(pod ? [pod] : []),
        samples: new Set([evidence()]),
        signals: new Set([o.signal]),
      });
      continue;
    }
    seen.c = {
      ...seen.c,
      count: seen.c.count + 1,
      firstSeen: Math.min(seen.c.firstSeen, o.at),
      lastSeen: Math.max(seen.c.lastSeen, o.at),
    };
    if (pod && seen.pods.size < MAX_PODS) seen.pods.add(pod);
    if (seen.samples.size < MAX_SAMPLES) seen.samples.add(evidence());
    seen.signals.add(o.signal);
  }
  return [...byKey.values()].map(({ c, pods, samples, signals }) => ({
    ...c,
    pods: [...pods],
    samples: [...samples],
    signals: orderSignals(signals),
  }));
}
