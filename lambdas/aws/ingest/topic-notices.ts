import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { snsSubject } from '../../core/text/sns-subject.js';

/** Notices to the notification topic (e-mail subscribers): a subject SNS accepts and a plain-text body. */
export class TopicNotices {
  constructor(
    private readonly sns: SNSClient,
    private readonly topicArn: string,
  ) {}

  async publish(subject: string, message: string): Promise<void> {
    await this.sns.send(
      new PublishCommand({ TopicArn: this.topicArn, Subject: snsSubject(subject), Message: message }),
    );
  }
}
