import {
  type BoundPod,
  type CorroborationResult,
  corroborateWithNode,
  corroborateWithPod,
  type NodeWithConditions,
} from '../../core/incident/corroboration.js';
import type { Occurrence } from '../../core/incident/incidents.js';
import { tenantBudgetNamespace } from '../../core/incident/provenance.js';
import type { IncidentBudget } from '../ingest/incident-budget.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';

/** What one event asks to be corroborated with. */
export interface EventToCorroborate {
  readonly occurrence: Occurrence;
  readonly about: { readonly kind: 'Pod' | 'Node'; readonly uid?: string };
}

/** Why an event was not corroborated: the namespace's budget of tenant signals is spent, or the facts say no. */
export type Uncorroborated = { readonly overBudget: true } | { readonly overBudget: false; readonly why: string };

/** A pod an event names that is not in the list is looked for again in a list at most this old. */
export const PENDING_REFRESH_MS = 5_000;

/**
 * Corroborates Kubernetes events (tenant rank) against the pods and nodes the API holds, for one cluster
 * and one invocation. Pods: one list of the cluster's Pending pods, listed again (at most every
 * {@link PENDING_REFRESH_MS}) when an event names a pod it lacks; a flood of events naming pods that do
 * not exist costs at most a list every few seconds, never a read per event. Nodes: each Node read once,
 * paid from the event's namespace's hourly budget of tenant signals (a namespace whose budget is spent
 * is not read for again this invocation).
 */
export class EventCorroborator {
  private pending?: { at: number; pods: Promise<Map<string, BoundPod>> };
  private readonly nodes = new Map<string, Promise<NodeWithConditions | undefined>>();
  private readonly spent = new Set<string>();

  constructor(
    private readonly cluster: string,
    private readonly api: ClusterApi,
    private readonly now: () => number,
    private readonly budget?: IncidentBudget,
  ) {}

  /** Whether the namespace's budget of tenant signals is spent (known this invocation: no read, no claim). */
  isSpent(namespace: string | undefined): boolean {
    return this.spent.has(tenantBudgetNamespace(namespace));
  }

  async corroborate(e: EventToCorroborate): Promise<CorroborationResult | Uncorroborated> {
    const o = e.occurrence;
    try {
      if (e.about.kind === 'Pod')
        return corroborateWithPod(
          o,
          await this.pendingPod(o.entities.namespace ?? '', o.entities.pod ?? ''),
          e.about.uid,
        );
      const name = o.entities.node ?? '';
      if (!this.nodes.has(name) && !(await this.pay(o))) return { overBudget: true };
      return corroborateWithNode(o, await this.node(name));
    } catch (err) {
      const why = `the API could not be read: ${(err as Error).name}: ${(err as Error).message}`.slice(0, 300);
      return { overBudget: false, why };
    }
  }

  /** The pod among the Pending ones (undefined: it does not exist, or it is not Pending). */
  private async pendingPod(namespace: string, name: string): Promise<BoundPod | undefined> {
    const key = `${namespace}/${name}`;
    const found = (await this.list(false)).get(key);
    if (found) return found;
    return (await this.list(true)).get(key);
  }

  private list(refresh: boolean): Promise<Map<string, BoundPod>> {
    const stale = !this.pending || (refresh && this.now() - this.pending.at >= PENDING_REFRESH_MS);
    if (stale) {
      const pods = this.api
        .pendingPods()
        .then(
          (list) =>
            new Map(
              (list as BoundPod[]).map((p) => [`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`, p] as const),
            ),
        );
      this.pending = { at: this.now(), pods };
      // A list that failed corroborates nothing; the next event lists again.
      pods.catch(() => {
        if (this.pending?.pods === pods) this.pending = undefined;
      });
    }
    return (this.pending as { pods: Promise<Map<string, BoundPod>> }).pods;
  }

  /** One Node read from the namespace's budget of tenant signals this hour. */
  private async pay(o: Occurrence): Promise<boolean> {
    const namespace = tenantBudgetNamespace(o.tenantNamespace);
    if (this.spent.has(namespace)) return false;
    if (!this.budget) return true;
    const scope = { cluster: this.cluster, rank: 'tenant' as const, namespace };
    if (await this.budget.take(scope, 'signals', this.now())) return true;
    this.spent.add(namespace);
    return false;
  }

  private node(name: string): Promise<NodeWithConditions | undefined> {
    let n = this.nodes.get(name);
    if (!n) {
      n = this.api.node(name) as Promise<NodeWithConditions | undefined>;
      this.nodes.set(name, n);
      n.catch(() => this.nodes.delete(name));
    }
    return n;
  }
}
