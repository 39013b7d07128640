import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  DescribeSubscriptionFiltersCommand,
  PutRetentionPolicyCommand,
  ResourceAlreadyExistsException,
  type SubscriptionFilter,
} from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ensureLogGroupReady,
  ensureLogGroupsReady,
  SubscriptionFilterLimitError,
} from '../../lambdas/aws/ingest/log-group-prerequisites.js';

const logs = new CloudWatchLogsClient({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
});
const mock = mockClient(logs);
const GROUP = '/aws/containerinsights/prod-eu/dataplane';
const INGEST = 'arn:aws:lambda:eu-west-1:111122223333:function:PodDoctor-Ingest-1a2b3c';
const meta = { httpStatusCode: 400, requestId: 'r-1', attempts: 1, totalRetryDelay: 0 };
const filter = (filterName: string, destinationArn: string): SubscriptionFilter => ({
  filterName,
  logGroupName: GROUP,
  filterPattern: '',
  destinationArn,
  distribution: 'ByLogStream',
  creationTime: 1_764_410_000_000,
});
const input = { logGroupName: GROUP, destinationArn: INGEST, retentionInDays: 90 };

function existing(filters: SubscriptionFilter[]) {
  mock
    .on(CreateLogGroupCommand)
    .rejects(
      new ResourceAlreadyExistsException({ message: 'The specified log group already exists', $metadata: meta }),
    );
  mock.on(DescribeSubscriptionFiltersCommand).resolves({ subscriptionFilters: filters });
}

beforeEach(() => mock.reset());

describe('log group prerequisites (before pod-doctor subscribes)', () => {
  it('creates a log group Container Insights has not created yet, with the configured retention', async () => {
    mock.on(CreateLogGroupCommand).resolves({});
    mock.on(PutRetentionPolicyCommand).resolves({});
    mock.on(DescribeSubscriptionFiltersCommand).resolves({ subscriptionFilters: [] });
    expect(await ensureLogGroupReady(logs, input)).toEqual({ created: true, otherFilters: [] });
    expect(mock.commandCalls(PutRetentionPolicyCommand)[0].args[0].input).toEqual({
      logGroupName: GROUP,
      retentionInDays: 90,
    });
  });

  it('leaves an existing group alone and accepts one other filter', async () => {
    existing([filter('datadog-forwarder', 'arn:aws:lambda:eu-west-1:111122223333:function:datadog')]);
    expect(await ensureLogGroupReady(logs, input)).toEqual({ created: false, otherFilters: ['datadog-forwarder'] });
    expect(mock.commandCalls(PutRetentionPolicyCommand)).toHaveLength(0);
  });

  it('refuses a group whose 2 subscription filters belong to others, naming them', async () => {
    existing([
      filter('datadog-forwarder', 'arn:aws:firehose:eu-west-1:111122223333:deliverystream/dd'),
      filter('splunk', 'arn:aws:logs:eu-west-1:111122223333:destination:splunk'),
    ]);
    await expect(ensureLogGroupReady(logs, input)).rejects.toThrow(SubscriptionFilterLimitError);
    await expect(ensureLogGroupReady(logs, input)).rejects.toThrow(
      `log group ${GROUP} already has 2 subscription filters (datadog-forwarder, splunk); CloudWatch Logs allows 2 per log group`,
    );
  });

  it('does not count pod-doctor’s own filter on an update', async () => {
    existing([
      filter('PodDoctorSubscription', INGEST),
      filter('splunk', 'arn:aws:logs:eu-west-1:111122223333:destination:splunk'),
    ]);
    expect((await ensureLogGroupReady(logs, input)).otherFilters).toEqual(['splunk']);
  });

  it('passes any other CloudWatch Logs error on (the deployment fails with it)', async () => {
    mock
      .on(CreateLogGroupCommand)
      .rejects(Object.assign(new Error('User is not authorized'), { name: 'AccessDeniedException' }));
    await expect(ensureLogGroupReady(logs, input)).rejects.toThrow('User is not authorized');
  });

  it('every group of the deployment: the groups without a slot are refused together, each named; the others made ready', async () => {
    const full = '/aws/containerinsights/full/dataplane';
    mock
      .on(CreateLogGroupCommand)
      .rejects(Object.assign(new Error('exists'), { name: 'ResourceAlreadyExistsException' }));
    mock.on(DescribeSubscriptionFiltersCommand).resolves({ subscriptionFilters: [] });
    mock.on(DescribeSubscriptionFiltersCommand, { logGroupName: full }).resolves({
      subscriptionFilters: [
        filter('datadog-forwarder', 'arn:aws:firehose:eu-west-1:111122223333:deliverystream/dd'),
        filter('splunk', 'arn:aws:logs:eu-west-1:111122223333:destination:splunk'),
      ],
    });
    const all = { ...input, logGroupNames: [GROUP, full, GROUP] };
    await expect(ensureLogGroupsReady(logs, all)).rejects.toThrow(SubscriptionFilterLimitError);
    await expect(ensureLogGroupsReady(logs, all)).rejects.toThrow(
      `log group ${full} already has 2 subscription filters`,
    );
    // Each group once, the one without a slot among them.
    expect(
      new Set(mock.commandCalls(DescribeSubscriptionFiltersCommand).map((c) => c.args[0].input.logGroupName)),
    ).toEqual(new Set([GROUP, full]));
    expect(await ensureLogGroupsReady(logs, { ...input, logGroupNames: [GROUP] })).toEqual({ created: [] });
  });
});
