import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DeadLetterAlarms } from '../dead-letter-alarms.js';
import { createDeadLetterQueue } from '../dead-letter-queue.js';
import type { NotificationChannels } from './channel-props.js';
import { ChatChannels } from './chat-channels.js';
import { NoticesPipe } from './notices-pipe.js';
import { Paging } from './paging.js';

/** Props of {@link Channels}. */
export interface ChannelsProps {
  readonly channels: NotificationChannels;
  /** The incident table, with a `NEW_IMAGE` stream. */
  readonly incidentTable: ITableV2;
  readonly evidenceBucket: IBucket;
  /** The e-mail topic: the dead-letter alarm mails it. */
  readonly alarmTopic: ITopic;
  /**
   * Key for the chat topic (the e-mail topic's, when pod-doctor created it).
   * @default - a new key
   */
  readonly key?: IKey;
  readonly logRetention: RetentionDays;
}

/**
 * pod-doctor's voices besides e-mail: the notices pipe puts one event per run and per pending
 * approval on a bus of its own; rules send each to the chat topic (Slack, Teams) and to the pagers
 * (PagerDuty, Opsgenie). What no channel accepted within 24 hours waits in one alarmed dead-letter queue.
 */
export class Channels extends Construct {
  /** The bus notices and approvals are put on; rules route them to the channels. */
  readonly bus: IEventBus;
  /** What no channel accepted within 24 hours (alarmed). */
  readonly deadLetterQueue: IQueue;
  /** The pipe that turns incident rows into notices on the bus. */
  readonly notices: NoticesPipe;
  /** Absent without Slack or Teams channels. */
  readonly chat?: ChatChannels;
  /** The dead-letter queue's alarms. */
  readonly alarms: DeadLetterAlarms;

  constructor(scope: Construct, id: string, props: ChannelsProps) {
    super(scope, id);
    const c = props.channels;
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    this.bus = new EventBus(this, 'Bus', { description: 'pod-doctor incident notices for chat and pagers' });
    this.notices = new NoticesPipe(this, 'Notices', {
      incidentTable: props.incidentTable,
      evidenceBucket: props.evidenceBucket,
      bus: this.bus,
      deadLetterQueue: this.deadLetterQueue,
      logRetention: props.logRetention,
    });
    if ((c.slack?.length ?? 0) + (c.teams?.length ?? 0) > 0)
      this.chat = new ChatChannels(this, 'Chat', {
        slack: c.slack ?? [],
        teams: c.teams ?? [],
        bus: this.bus,
        deadLetterQueue: this.deadLetterQueue,
        key: props.key,
        guardrailPolicies: c.chatGuardrailPolicies,
      });
    if (c.pagerDuty || c.opsgenie)
      new Paging(this, 'Paging', {
        pagerDuty: c.pagerDuty,
        opsgenie: c.opsgenie,
        bus: this.bus,
        deadLetterQueue: this.deadLetterQueue,
      });
    this.alarms = new DeadLetterAlarms(this, 'Alarms', {
      queues: [
        {
          id: 'Undelivered',
          what: 'incident notices no chat channel or pager accepted within 24 hours (or that could not be made)',
          queue: this.deadLetterQueue,
        },
      ],
      topic: props.alarmTopic,
    });
  }
}
