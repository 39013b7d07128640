import {
  type CloudWatchLogsClient,
  CreateLogGroupCommand,
  DescribeSubscriptionFiltersCommand,
  PutRetentionPolicyCommand,
  type SubscriptionFilter,
} from '@aws-sdk/client-cloudwatch-logs';

/** CloudWatch Logs allows this many subscription filters per log group. */
export const MAX_SUBSCRIPTION_FILTERS = 2;

/** What the deployment needs before it subscribes pod-doctor to a log group. */
export interface LogGroupPrerequisitesInput {
  readonly logGroupName: string;
  /** ARN of the function the subscription filter delivers to (pod-doctor's own filter). */
  readonly destinationArn: string;
  /** Retention to set when pod-doctor has to create the group (a CloudWatch Logs retention value). */
  readonly retentionInDays: number;
}

/** Refused at deploy: the log group already has all the subscription filters it may have. */
export class SubscriptionFilterLimitError extends Error {
  override readonly name = 'SubscriptionFilterLimitError';
}

export interface LogGroupPrerequisitesResult {
  /** True when the group did not exist and pod-doctor created it. */
  readonly created: boolean;
  /** Subscription filters of other owners on the group. */
  readonly otherFilters: readonly string[];
}

/**
 * Makes a log group ready for pod-doctor's subscription filter: creates it when Container Insights
 * has not yet (it creates the group on its first flush, and CloudFormation cannot subscribe to a group
 * that does not exist), and refuses, with the filters by name, a group whose 2 subscription filters
 * are taken by others. Never deletes anything: on stack deletion the group and its logs stay.
 * @throws SubscriptionFilterLimitError when no filter slot is left for pod-doctor
 */
export async function ensureLogGroupReady(
  logs: CloudWatchLogsClient,
  input: LogGroupPrerequisitesInput,
): Promise<LogGroupPrerequisitesResult> {
  let created = false;
  try {
    await logs.send(new CreateLogGroupCommand({ logGroupName: input.logGroupName }));
    created = true;
  } catch (e) {
    if ((e as Error).name !== 'ResourceAlreadyExistsException') throw e;
  }
  if (created)
    await logs.send(
      new PutRetentionPolicyCommand({ logGroupName: input.logGroupName, retentionInDays: input.retentionInDays }),
    );
  const filters: SubscriptionFilter[] = [];
  let nextToken: string | undefined;
  do {
    const page = await logs.send(
      new DescribeSubscriptionFiltersCommand({ logGroupName: input.logGroupName, nextToken }),
    );
    filters.push(...(page.subscriptionFilters ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  const others = filters.filter((f) => f.destinationArn !== input.destinationArn).map((f) => f.filterName ?? '?');
  if (others.length >= MAX_SUBSCRIPTION_FILTERS)
    throw new SubscriptionFilterLimitError(
      `log group ${input.logGroupName} already has ${others.length} subscription filters (${others.join(', ')}); CloudWatch Logs allows ${MAX_SUBSCRIPTION_FILTERS} per log group and pod-doctor needs one: delete one (aws logs delete-subscription-filter) or remove this log group from pod-doctor.clusters[].logGroups`,
    );
  return { created, otherFilters: others };
}

/** What one deployment makes ready: every log group it subscribes to. */
export interface LogGroupsPrerequisitesInput extends Omit<LogGroupPrerequisitesInput, 'logGroupName'> {
  readonly logGroupNames: readonly string[];
}

/**
 * Every group of the deployment made ready, one after another (CloudWatch Logs' control-plane calls
 * are rate-limited per account); the groups without a free filter slot are refused together, each
 * named with its filters, so one deployment attempt shows them all.
 * @throws SubscriptionFilterLimitError naming every group without a slot
 */
export async function ensureLogGroupsReady(
  logs: CloudWatchLogsClient,
  input: LogGroupsPrerequisitesInput,
): Promise<{ readonly created: readonly string[] }> {
  const created: string[] = [];
  const refused: string[] = [];
  for (const logGroupName of new Set(input.logGroupNames)) {
    try {
      if ((await ensureLogGroupReady(logs, { ...input, logGroupName })).created) created.push(logGroupName);
    } catch (e) {
      if (!(e instanceof SubscriptionFilterLimitError)) throw e;
      refused.push(e.message);
    }
  }
  if (refused.length) throw new SubscriptionFilterLimitError(refused.join('; '));
  return { created };
}
