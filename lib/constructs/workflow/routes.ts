import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Choice, Condition, type State, type TaskStateBase } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { at } from '../../../lambdas/core/workflow/execution-state.js';

/** The copy of a function that runs in one VPC, for the clusters whose API server is reached from there. */
export interface VpcRoute {
  readonly vpcId: string;
  /** Names of the clusters of that VPC. */
  readonly clusters: readonly string[];
  readonly fn: IFunction;
}

/** A Task routed by the incident's cluster: its copies, and the state every caller enters by. */
export interface RoutedTask<T extends TaskStateBase> {
  /** "<id>: which VPC?" (a Choice) with VPC routes, else the one Task. */
  readonly entry: State;
  /** Every copy (the function outside any VPC first): give each the same next state and catches. */
  readonly tasks: readonly T[];
}

/** The state name of a Task's copy in a VPC. */
export function routedStateName(id: string, vpcId: string): string {
  return `${id} in ${vpcId}`;
}

/**
 * One Task per place the function runs: `build(id, fn)` for the function outside any VPC (state `id`,
 * the default) and for each VPC's copy (state "<id> in <vpc>"), chosen by the incident's cluster.
 * Without VPC routes this is the one Task, unchanged. Without a function outside any VPC (every
 * cluster is private) the last VPC's copy is the default. Only the cluster name pod-doctor's own
 * configuration lists chooses a route: a cluster of no VPC route goes to the default.
 */
export function routedTask<T extends TaskStateBase>(
  scope: Construct,
  id: string,
  fn: IFunction | undefined,
  vpcs: readonly VpcRoute[],
  build: (id: string, fn: IFunction) => T,
): RoutedTask<T> {
  const last = vpcs.at(-1);
  const routes = fn ? vpcs : vpcs.slice(0, -1);
  if (!fn && !last) throw new Error(`${id}: no function to route to`);
  const main = fn ? build(id, fn) : build(routedStateName(id, last?.vpcId ?? ''), last?.fn as IFunction);
  if (routes.length === 0) return { entry: main, tasks: [main] };
  const choice = new Choice(scope, `${id}: which VPC?`);
  const copies = routes.map((v) => {
    const task = build(routedStateName(id, v.vpcId), v.fn);
    const conditions = v.clusters.map((c) => Condition.stringEquals(at('cluster'), c));
    choice.when(conditions.length === 1 ? conditions[0] : Condition.or(...conditions), task);
    return task;
  });
  choice.otherwise(main);
  return { entry: choice, tasks: [main, ...copies] };
}

/** Whether a routed function exists at all (outside any VPC, or in one). */
export function anyRoute(fn: IFunction | undefined, vpcs: readonly VpcRoute[] | undefined): boolean {
  return fn !== undefined || (vpcs?.length ?? 0) > 0;
}
