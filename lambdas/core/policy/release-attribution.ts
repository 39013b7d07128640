/**
 * Release-regression attribution (issue 35, part 1), pure: when the incidents of one node-level
 * class concentrate on nodes that share a recent change — the AMI release, the kubelet or containerd
 * version, the launch template version, an add-on version — say so with the counts and a stated
 * significance rule, and name the pin or rollback per node group. Node facts come from AWS and the
 * nodes' own status only (EC2 DescribeInstances/DescribeImages, EKS DescribeNodegroup, the kubelet's
 * `status.nodeInfo`); a log line or a pod never names a release.
 *
 * The rule: Fisher's exact test, one-sided (is the class more frequent on nodes with the value than
 * on the others), p < 0.01, at least `minAffected` (3) affected nodes with the value, at least 80% of
 * the affected nodes on it, and a previous value still running on unaffected nodes (what to pin back
 * to). With 12 of 12 affected nodes on a release and 0 of 40 on the previous one, p ≈ 5e-12; with
 * 3 of 3 and 0 of 5, p = 1/56 ≈ 0.018: too few nodes to tell, said so, nothing proposed.
 */

/** What a node runs, as AWS or the node itself reports it. */
export const RELEASE_ATTRIBUTES = [
  'ami-release',
  'launch-template-version',
  'containerd',
  'kubelet',
  'addon-vpc-cni',
] as const;
export type ReleaseAttribute = (typeof RELEASE_ATTRIBUTES)[number];

const ATTRIBUTE_NAMES: Readonly<Record<ReleaseAttribute, string>> = {
  'ami-release': 'AMI release',
  'launch-template-version': 'launch template version',
  containerd: 'containerd',
  kubelet: 'kubelet',
  'addon-vpc-cni': 'vpc-cni add-on',
};

/** How the node was launched, from AWS's own tags and node labels. */
export type NodeGroupRef =
  | { readonly kind: 'managed'; readonly name: string }
  | { readonly kind: 'karpenter'; readonly name: string }
  | { readonly kind: 'self-managed'; readonly name: string };

export interface NodeRelease {
  readonly instanceId: string;
  readonly group: NodeGroupRef;
  readonly attributes: Partial<Readonly<Record<ReleaseAttribute, string>>>;
  /** EC2 LaunchTime (ISO). */
  readonly launchedAt: string;
}

/** A node with an open incident of the class: which namespaces its failing pods are in (kubelet-written pod status). */
export interface AffectedNode {
  readonly instanceId: string;
  readonly namespaces: readonly string[];
}

export interface AttributionRule {
  /** One-sided p below which the concentration is not chance. @default 0.01 */
  readonly alpha: number;
  /** Affected nodes with the value, at least. @default 3 */
  readonly minAffected: number;
  /** Share of the affected nodes that have the value, at least. @default 0.8 */
  readonly minShare: number;
}
export const DEFAULT_RULE: AttributionRule = { alpha: 0.01, minAffected: 3, minShare: 0.8 };

export interface Counts {
  /** Affected nodes with the value / nodes with the value. */
  readonly affectedWith: number;
  readonly with: number;
  /** Affected nodes with the previous value / nodes with it. */
  readonly affectedPrevious: number;
  readonly previous: number;
  readonly affected: number;
  readonly nodes: number;
}

export type Attribution =
  | {
      readonly status: 'attributed';
      readonly attribute: ReleaseAttribute;
      readonly value: string;
      readonly previous: string;
      readonly counts: Counts;
      readonly p: number;
      /** "12 of 12 affected nodes run AMI release …; 0 of 40 on …" with the rule. */
      readonly line: string;
      /** Other attributes that changed with it on the same nodes (they cannot be told apart). */
      readonly alongside: readonly string[];
      /** The node groups whose nodes run the value (where a pin applies). */
      readonly groups: readonly NodeGroupRef[];
    }
  | { readonly status: 'too-few' | 'not-concentrated' | 'tenant' | 'not-node-level'; readonly line: string };

/** log C(n, k). */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * Fisher's exact test, one-sided (greater): the probability, with the margins fixed, of at least `a`
 * affected nodes among the `withValue` nodes, when `affected` of `total` nodes are affected.
 */
export function fisherOneSided(a: number, withValue: number, affected: number, total: number): number {
  const max = Math.min(withValue, affected);
  const denominator = logChoose(total, affected);
  let p = 0;
  for (let x = a; x <= max; x++) {
    if (affected - x > total - withValue) continue;
    p += Math.exp(logChoose(withValue, x) + logChoose(total - withValue, affected - x) - denominator);
  }
  return Math.min(1, p);
}

const fmtP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

interface Candidate {
  readonly attribute: ReleaseAttribute;
  readonly value: string;
  readonly previous?: string;
  readonly counts: Counts;
  readonly p: number;
}

/** The newest value of an attribute (latest first launch) and the one before it. */
function newestTwo(
  nodes: readonly NodeRelease[],
  attribute: ReleaseAttribute,
): [string, string | undefined] | undefined {
  const first = new Map<string, number>();
  for (const n of nodes) {
    const v = n.attributes[attribute];
    if (v === undefined) continue;
    const t = Date.parse(n.launchedAt);
    first.set(v, Math.min(first.get(v) ?? Number.POSITIVE_INFINITY, Number.isFinite(t) ? t : 0));
  }
  const order = [...first.entries()].sort((a, b) => b[1] - a[1] || b[0].localeCompare(a[0])).map(([v]) => v);
  return order[0] === undefined ? undefined : [order[0], order[1]];
}

function candidate(
  nodes: readonly NodeRelease[],
  hit: ReadonlySet<string>,
  attribute: ReleaseAttribute,
): Candidate | undefined {
  const two = newestTwo(nodes, attribute);
  if (!two) return undefined;
  const [value, previous] = two;
  const on = (v: string | undefined) => nodes.filter((n) => v !== undefined && n.attributes[attribute] === v);
  const withValue = on(value);
  const prev = on(previous);
  const counts: Counts = {
    affectedWith: withValue.filter((n) => hit.has(n.instanceId)).length,
    with: withValue.length,
    affectedPrevious: prev.filter((n) => hit.has(n.instanceId)).length,
    previous: prev.length,
    affected: nodes.filter((n) => hit.has(n.instanceId)).length,
    nodes: nodes.length,
  };
  const p = fisherOneSided(counts.affectedWith, counts.with, counts.affected, counts.nodes);
  return { attribute, value, ...(previous ? { previous } : {}), counts, p };
}

function countsLine(c: Candidate): string {
  const name = ATTRIBUTE_NAMES[c.attribute];
  const prev = c.previous
    ? `; ${c.counts.affectedPrevious} of ${c.counts.previous} on ${c.previous}`
    : '; no node runs an earlier one';
  return `${c.counts.affectedWith} of ${c.counts.with} affected nodes run ${name} ${c.value}${prev}`;
}

const ruleLine = (r: AttributionRule) =>
  `Fisher's exact test one-sided p < ${r.alpha}, at least ${r.minAffected} affected nodes and ${Math.round(r.minShare * 100)}% of them on the value`;

/**
 * Attribute a class's incidents to a shared release. `nodeLevel`: the class's incidents are per node
 * (a pull failure of one image is not a node's release). The affected nodes' failing pods must come
 * from more than one namespace, or from kube-system: one namespace alone is a tenant's workload, never
 * a node group's cause.
 */
export function attributeRelease(i: {
  readonly failureClass: string;
  readonly nodeLevel: boolean;
  readonly nodes: readonly NodeRelease[];
  readonly affected: readonly AffectedNode[];
  readonly rule?: AttributionRule;
}): Attribution {
  const rule = i.rule ?? DEFAULT_RULE;
  if (!i.nodeLevel)
    return { status: 'not-node-level', line: `${i.failureClass} is not a node-level class: no release attribution` };
  const known = new Set(i.nodes.map((n) => n.instanceId));
  const affected = i.affected.filter((a) => known.has(a.instanceId));
  const namespaces = new Set(affected.flatMap((a) => a.namespaces));
  if (affected.length && namespaces.size === 1 && !namespaces.has('kube-system'))
    return {
      status: 'tenant',
      line: `every failing pod is in namespace ${[...namespaces][0]}: one namespace's own workload is no node group's cause, nothing pinned`,
    };
  const hit = new Set(affected.map((a) => a.instanceId));
  const candidates = RELEASE_ATTRIBUTES.map((a) => candidate(i.nodes, hit, a)).filter((c): c is Candidate => !!c);
  const best = [...candidates].sort((a, b) => a.p - b.p)[0];
  if (!best) return { status: 'not-concentrated', line: 'no release facts for the cluster’s nodes' };
  const line = `${countsLine(best)} (p = ${fmtP(best.p)}; rule: ${ruleLine(rule)})`;
  if (
    best.counts.affectedWith < rule.minAffected ||
    (best.p >= rule.alpha && best.counts.affectedWith === best.counts.with)
  )
    return { status: 'too-few', line: `too few nodes to attribute: ${line}` };
  if (best.p >= rule.alpha || best.counts.affectedWith < rule.minShare * best.counts.affected || !best.previous)
    return { status: 'not-concentrated', line: `not a release regression: ${line}` };
  const onValue = i.nodes.filter((n) => n.attributes[best.attribute] === best.value);
  const groups = [...new Map(onValue.map((n) => [`${n.group.kind}/${n.group.name}`, n.group])).values()];
  const alongside = candidates
    .filter((c) => c.attribute !== best.attribute && c.p <= best.p * 1.0001 + Number.EPSILON)
    .map((c) => `${ATTRIBUTE_NAMES[c.attribute]} ${c.value}`);
  return {
    status: 'attributed',
    attribute: best.attribute,
    value: best.value,
    previous: best.previous,
    counts: best.counts,
    p: best.p,
    line,
    alongside,
    groups,
  };
}
