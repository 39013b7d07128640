import { Names } from 'aws-cdk-lib';
import { CfnMicrosoftTeamsChannelConfiguration, SlackChannelConfiguration } from 'aws-cdk-lib/aws-chatbot';
import { type IEventBus, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { type IManagedPolicy, ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NOTICE_DETAIL_TYPE, NOTICE_SOURCE } from '../../../lambdas/core/voices/notice.js';
import { TopicFromRule } from '../topic-from-rule.js';
import type { SlackChannel, TeamsChannel } from './channel-props.js';
import { DELIVERY_RETRY } from './delivery.js';

/** Props of {@link ChatChannels}. */
export interface ChatChannelsProps {
  readonly slack: readonly SlackChannel[];
  readonly teams: readonly TeamsChannel[];
  /** The notices bus. */
  readonly bus: IEventBus;
  /** Where notices that could not be published are kept. */
  readonly deadLetterQueue: IQueue;
  /**
   * Key of the chat topic.
   * @default - a new customer managed key with rotation
   */
  readonly key?: IKey;
  /** @default - ReadOnlyAccess */
  readonly guardrailPolicies?: readonly IManagedPolicy[];
}

/**
 * Chat through Amazon Q Developer in chat applications: a topic of its own that carries only
 * custom-notification JSON (the e-mail topic carries e-mail text; Amazon Q Developer's subscription
 * takes no filter policy, so one topic for both would mail JSON or post nothing), a rule that
 * publishes each notice's card to it, and one channel configuration per Slack and Teams channel, with
 * a role that has no permissions and read-only guardrails.
 */
export class ChatChannels extends Construct {
  /** The topic the channels subscribe to: notice cards only (alarms mail the e-mail topic). */
  readonly topic: ITopic;

  constructor(scope: Construct, id: string, props: ChatChannelsProps) {
    super(scope, id);
    const key = props.key ?? this.createKey();
    const topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true, displayName: 'pod-doctor chat' });
    this.topic = topic;
    new Rule(this, 'CardRule', {
      description: 'pod-doctor: each incident notice as a chat card',
      eventBus: props.bus,
      eventPattern: { source: [NOTICE_SOURCE], detailType: [NOTICE_DETAIL_TYPE] },
      targets: [
        new TopicFromRule(topic, props.deadLetterQueue, {
          ...DELIVERY_RETRY,
          message: RuleTargetInput.fromEventPath('$.detail.chat'),
        }),
      ],
    });
    const guardrails = props.guardrailPolicies ?? [ManagedPolicy.fromAwsManagedPolicyName('ReadOnlyAccess')];
    props.slack.forEach((c, i) => {
      new SlackChannelConfiguration(this, `Slack${i}`, {
        slackChannelConfigurationName: this.configurationName(`slack-${i}`),
        slackWorkspaceId: c.workspaceId,
        slackChannelId: c.channelId,
        notificationTopics: [topic],
        guardrailPolicies: [...guardrails],
      });
    });
    for (const [i, c] of props.teams.entries()) this.teamsChannel(`Teams${i}`, c, topic, guardrails);
  }

  /** A configuration name unique in the account, derived from where this construct sits (no fixed physical name). */
  private configurationName(suffix: string): string {
    return `${Names.uniqueResourceName(this, { maxLength: 110, separator: '-' })}-${suffix}`;
  }

  private teamsChannel(id: string, c: TeamsChannel, topic: ITopic, guardrails: readonly IManagedPolicy[]): void {
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal('chatbot.amazonaws.com'),
      description: 'pod-doctor chat channel (notifications only: no permissions)',
    });
    new CfnMicrosoftTeamsChannelConfiguration(this, id, {
      configurationName: this.configurationName(id.toLowerCase()),
      iamRoleArn: role.roleArn,
      teamId: c.teamId,
      teamsTenantId: c.tenantId,
      teamsChannelId: c.channelId,
      ...(c.channelName ? { teamsChannelName: c.channelName } : {}),
      snsTopicArns: [topic.topicArn],
      guardrailPolicies: guardrails.map((p) => p.managedPolicyArn),
      loggingLevel: 'ERROR',
    });
  }

  /**
   * The chat topic's own key (when the e-mail topic was brought and its key is unknown): EventBridge
   * may use it without conditions, because its KMS requests for an encrypted topic carry no
   * aws:SourceAccount/aws:SourceArn (a condition on them drops every event); the topic policy names
   * the one rule that may publish.
   * https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services
   */
  private createKey(): IKey {
    const key = new Key(this, 'Key', { enableKeyRotation: true, description: 'pod-doctor chat topic' });
    key.grant(new ServicePrincipal('events.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    return key;
  }
}
