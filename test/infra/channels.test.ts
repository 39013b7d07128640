import { describe, expect, it } from 'vitest';
import type { NoticeEvent } from '../../lambdas/aws/voices/notices.js';
import { chatCard } from '../../lambdas/core/voices/chat-card.js';
import type { IncidentNotice, NoticeKind } from '../../lambdas/core/voices/notice.js';
import { NOTICE_DETAIL_TYPE, NOTICE_SOURCE } from '../../lambdas/core/voices/notice.js';
import { pagingDetail } from '../../lambdas/core/voices/paging.js';
import { matchesEventPattern } from '../../local/event-pattern.js';
import { CHANNELS } from '../support/channels.js';
import { identityStatements } from '../support/iam.js';
import { synth, synthIn } from '../support/synth.js';
import {
  chatCardProblems,
  opsgenieCloseProblems,
  opsgenieCreateProblems,
  pagerDutyProblems,
} from '../support/vendor-schemas.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };
const CLUSTER = { name: 'prod-eu', logGroups: ['/aws/containerinsights/prod-eu/dataplane'] };
const CHANNEL_TYPES = [
  'AWS::Pipes::Pipe',
  'AWS::Events::EventBus',
  'AWS::Events::Connection',
  'AWS::Events::ApiDestination',
  'AWS::Chatbot::SlackChannelConfiguration',
  'AWS::Chatbot::MicrosoftTeamsChannelConfiguration',
];

const resources = (t: Record<string, unknown>) => t.Resources as Record<string, Resource>;
const ofType = (t: Record<string, unknown>, type: string) =>
  Object.entries(resources(t)).filter(([, r]) => r.Type === type);

describe('without channels nothing extra is created', () => {
  const plain = synthIn({ clusters: [CLUSTER] }, {}).templateJson;
  const empty = synthIn({ clusters: [CLUSTER], channels: { slack: [], teams: [] } }, {}).templateJson;

  it('the template is the same with an empty channel list as with none', () => {
    expect(empty).toEqual(plain);
  });

  it('no pipe, bus, connection, destination or chat configuration, and no table stream', () => {
    for (const type of CHANNEL_TYPES) expect(ofType(plain, type), type).toEqual([]);
    expect(Object.keys(resources(plain)).filter((id) => id.includes('Channels'))).toEqual([]);
    const [[, table]] = ofType(plain, 'AWS::DynamoDB::GlobalTable');
    expect(table.Properties.StreamSpecification).toBeUndefined();
  });
});

const NOTICE: IncidentNotice = {
  kind: 'needs-human',
  incidentId: '3f9a0c1d2e4b5a69-1795860000',
  class: 'sandbox-image',
  cluster: 'prod-eu',
  where: 'ip-10-0-12-34.eu-west-1.compute.internal',
  headline: 'repaired, verification failed: 2 new lines',
  cause: 'sandbox-image: 401 Unauthorized',
  evidence: ['Failed to create pod sandbox: <!channel>'],
  findings: [],
  actions: ['repair-pause-image: Success'],
  nextSteps: ['replace the node'],
  links: [{ label: 'execution', url: 'https://eu-west-1.console.aws.amazon.com/states/home' }],
  at: '2026-11-29T10:07:00.000Z',
};

/** The event the pipe puts on the bus for a notice of `kind`, as EventBridge delivers it to rules. */
function busEvent(kind: NoticeKind): Record<string, unknown> {
  const notice = { ...NOTICE, kind };
  const paging = pagingDetail(notice);
  const detail: NoticeEvent = {
    notice: {
      kind,
      incidentId: notice.incidentId,
      class: notice.class,
      cluster: notice.cluster,
      where: notice.where,
      at: notice.at,
    },
    chat: chatCard(notice),
    ...(paging ? { paging } : {}),
  };
  return {
    version: '0',
    id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
    'detail-type': NOTICE_DETAIL_TYPE,
    source: NOTICE_SOURCE,
    account: '111122223333',
    time: '2026-11-29T10:07:01Z',
    region: 'eu-west-1',
    resources: [],
    detail,
  };
}

/** `$.a.b` of an event, as an InputPath selects it. */
const at = (event: unknown, path: string) =>
  path
    .replace(/^\$\./, '')
    .split('.')
    .reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], event);

describe('with Slack, Teams, PagerDuty and Opsgenie', () => {
  const { templateJson: t } = synth({
    clusters: [CLUSTER],
    notificationEmails: ['oncall@example.com'],
    channels: CHANNELS,
  });
  const R = resources(t);
  const id = (type: string, part = '') => {
    const found = ofType(t, type).filter(([k]) => k.includes(part));
    expect(found, `${type} ${part}`).toHaveLength(1);
    return found[0];
  };
  const rules = ofType(t, 'AWS::Events::Rule').filter(([k]) => k.includes('Channels'));
  type Target = { rule: string; Arn: unknown; InputPath?: string; HttpParameters?: unknown };
  const targetsOf = (event: unknown): Target[] =>
    rules
      .filter(([, r]) => matchesEventPattern(r.Properties.EventPattern as Record<string, unknown>, event))
      .flatMap(([k, r]) => (r.Properties.Targets as Omit<Target, 'rule'>[]).map((x) => ({ ...x, rule: k })));
  const [chatTopicId] = id('AWS::SNS::Topic', 'ChannelsChat');
  const [busId] = id('AWS::Events::EventBus');
  const [dlqId] = id('AWS::SQS::Queue', 'ChannelsDeadLetterQueue');
  const ref = (x: unknown) => JSON.stringify(x);

  it('the incident table streams new images; the pipe reads first writes of runs and approvals into the bus', () => {
    const [[tableId, table]] = ofType(t, 'AWS::DynamoDB::GlobalTable');
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    const [, pipe] = id('AWS::Pipes::Pipe');
    expect(ref(pipe.Properties.Source)).toContain(tableId);
    expect(ref(pipe.Properties.Target)).toContain(busId);
    const filters = (
      pipe.Properties.SourceParameters as { FilterCriteria: { Filters: { Pattern: string }[] } }
    ).FilterCriteria.Filters.map((f) => JSON.parse(f.Pattern));
    const record = (pk: string, sk: string, eventName = 'INSERT') => ({
      eventName,
      dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } } },
    });
    const passes = (r: unknown) => filters.some((f) => matchesEventPattern(f, r));
    expect(passes(record('INCIDENT#k', 'RUN#1795860000000#x'))).toBe(true);
    expect(passes(record('APPROVAL#6c1f', 'APPROVAL'))).toBe(true);
    expect(passes(record('INCIDENT#k', 'RUN#1795860000000#x', 'MODIFY'))).toBe(false);
    expect(passes(record('INCIDENT#k', 'OPEN'))).toBe(false);
    expect(passes(record('LOCK#k', 'LOCK'))).toBe(false);
    expect(pipe.Properties.SourceParameters).toMatchObject({
      DynamoDBStreamParameters: { StartingPosition: 'LATEST', MaximumRecordAgeInSeconds: 86_400 },
    });
    expect(ref((pipe.Properties.SourceParameters as Record<string, unknown>).DynamoDBStreamParameters)).toContain(
      dlqId,
    );
  });

  it('the pipe role reads that stream, invokes the enrichment, puts on the bus and keeps failures, nothing else', () => {
    const [pipeRoleId] = id('AWS::IAM::Role', 'NoticesPipeRole');
    const actions = identityStatements(t)
      .filter((s) => s.logicalId.startsWith(pipeRoleId.replace(/[0-9A-F]{8}$/, '')))
      .flatMap((s) => s.Action)
      .sort();
    expect(actions).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
      'events:PutEvents',
      'lambda:InvokeFunction',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
  });

  it('the enrichment function may only read objects under incidents/ of the evidence bucket', () => {
    const reads = identityStatements(t).filter(
      (s) => s.logicalId.includes('ChannelsNoticesEnrich') && s.Action.some((a) => a.startsWith('s3:')),
    );
    expect(reads).toHaveLength(1);
    expect(reads[0].Action).toEqual(['s3:GetObject']);
    expect(ref(reads[0].Resource)).toContain('/incidents/*');
  });

  it('every notice reaches the chat topic as its card, valid for Amazon Q Developer', () => {
    for (const kind of ['approval-pending', 'needs-human', 'verified', 'closed', 'informational'] as const) {
      const chat = targetsOf(busEvent(kind)).filter((x) => ref(x.Arn).includes(chatTopicId));
      expect(chat, kind).toHaveLength(1);
      expect(chatCardProblems(at(busEvent(kind), String(chat[0].InputPath)))).toEqual([]);
    }
  });

  it('a notice that needs a human triggers PagerDuty and creates the Opsgenie alert, with bodies the vendors accept', () => {
    const event = busEvent('needs-human');
    const targets = targetsOf(event).filter((x) => !ref(x.Arn).includes(chatTopicId));
    expect(targets.map((x) => x.rule.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'PodDoctorChannelsPagingOpsgenieTrigger',
      'PodDoctorChannelsPagingPagerDuty',
    ]);
    for (const x of targets) {
      const body = at(event, String(x.InputPath)) as Record<string, unknown>;
      if (x.rule.includes('PagerDuty')) expect(pagerDutyProblems(body)).toEqual([]);
      else expect(opsgenieCreateProblems(body)).toEqual([]);
    }
  });

  it('a verified notice resolves PagerDuty and closes the Opsgenie alert by its alias', () => {
    const event = busEvent('verified');
    const targets = targetsOf(event).filter((x) => !ref(x.Arn).includes(chatTopicId));
    expect(targets.map((x) => x.rule.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'PodDoctorChannelsPagingOpsgenieResolve',
      'PodDoctorChannelsPagingPagerDuty',
    ]);
    const close = targets.find((x) => x.rule.includes('OpsgenieResolve'));
    expect(close?.HttpParameters).toEqual({
      PathParameterValues: ['$.detail.paging.dedupKey'],
      QueryStringParameters: { identifierType: 'alias' },
    });
    expect(at(event, '$.detail.paging.dedupKey')).toBe('pod-doctor-3f9a0c1d2e4b5a69-1795860000');
    expect(opsgenieCloseProblems(at(event, String(close?.InputPath)) as Record<string, unknown>)).toEqual([]);
  });

  it('an informational notice pages nobody', () => {
    expect(targetsOf(busEvent('informational')).filter((x) => !ref(x.Arn).includes(chatTopicId))).toEqual([]);
  });

  it('every channel target retries for 24 hours (185 attempts) and then keeps the notice in the alarmed queue', () => {
    const all = rules.flatMap(([, r]) => r.Properties.Targets as Record<string, unknown>[]);
    expect(all).toHaveLength(4);
    for (const x of all) {
      expect(x.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 });
      expect(ref(x.DeadLetterConfig)).toContain(dlqId);
    }
    const alarm = ofType(t, 'AWS::CloudWatch::Alarm').find(([k]) => k.includes('ChannelsAlarmsUndelivered'));
    expect(ref(alarm?.[1].Properties.Dimensions)).toContain(dlqId);
    const [emailTopicId] = id('AWS::SNS::Topic', 'NotificationsTopic');
    expect(ref(alarm?.[1].Properties.AlarmActions)).toContain(emailTopicId);
  });

  it('keys stay in Secrets Manager: dynamic references only, routing_key as a secret body parameter', () => {
    const [, pd] = id('AWS::Events::Connection', 'PagerDuty');
    const auth = pd.Properties.AuthParameters as Record<string, Record<string, unknown>>;
    expect(ref(auth.ApiKeyAuthParameters.ApiKeyValue)).toMatch(
      /\{\{resolve:secretsmanager:.*pod-doctor\/pagerduty-AbC123:SecretString:routingKey::\}\}/,
    );
    expect(auth.InvocationHttpParameters.BodyParameters).toEqual([
      expect.objectContaining({ Key: 'routing_key', IsValueSecret: true }),
    ]);
    const [, og] = id('AWS::Events::Connection', 'Opsgenie');
    expect(ref(og.Properties.AuthParameters)).toContain('"ApiKeyName":"Authorization"');
    const destinations = ofType(t, 'AWS::Events::ApiDestination')
      .map(([, r]) => r.Properties.InvocationEndpoint)
      .sort();
    expect(destinations).toEqual([
      'https://api.eu.opsgenie.com/v2/alerts',
      'https://api.eu.opsgenie.com/v2/alerts/*/close',
      'https://events.pagerduty.com/v2/enqueue',
    ]);
  });

  it('Slack and Teams subscribe to the chat topic only, with no permissions and read-only guardrails', () => {
    const [, slack] = id('AWS::Chatbot::SlackChannelConfiguration');
    const [, teams] = id('AWS::Chatbot::MicrosoftTeamsChannelConfiguration');
    for (const c of [slack, teams]) {
      expect(ref(c.Properties.SnsTopicArns)).toBe(ref([{ Ref: chatTopicId }]));
      expect(ref(c.Properties.GuardrailPolicies)).toContain(':iam::aws:policy/ReadOnlyAccess');
      const roleId = ref(c.Properties.IamRoleArn).match(/"(PodDoctor[A-Za-z0-9]+)"/)?.[1] ?? '';
      expect(R[roleId].Type).toBe('AWS::IAM::Role');
      expect(identityStatements(t).filter((s) => s.logicalId.startsWith(roleId.slice(0, -8)))).toEqual([]);
    }
    expect(teams.Properties).toMatchObject({
      TeamsChannelName: 'eks-oncall',
      TeamsTenantId: CHANNELS.teams[0].tenantId,
    });
  });
});
