import { Duration } from 'aws-cdk-lib';

/**
 * How long EventBridge keeps delivering a notice to a channel (SNS, PagerDuty, Opsgenie): the
 * maximum it allows, 24 hours and 185 attempts with exponential back-off, so an endpoint down for an
 * hour loses nothing; after that the notice is kept in the channels' dead-letter queue (alarmed).
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-retry-policy.html
 */
export const DELIVERY_RETRY = { maxEventAge: Duration.hours(24), retryAttempts: 185 } as const;
