import type { SecretValue } from 'aws-cdk-lib';
import {
  ApiDestination,
  Authorization,
  Connection,
  HttpMethod,
  HttpParameter,
  type IEventBus,
  Rule,
  RuleTargetInput,
} from 'aws-cdk-lib/aws-events';
import { ApiDestination as ApiDestinationTarget } from 'aws-cdk-lib/aws-events-targets';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NOTICE_DETAIL_TYPE, NOTICE_SOURCE } from '../../../lambdas/core/voices/notice.js';
import type { OpsgenieChannel, PagerDutyChannel } from './channel-props.js';
import { DELIVERY_RETRY } from './delivery.js';

/** Props of {@link Paging}. */
export interface PagingProps {
  /** @default - no PagerDuty */
  readonly pagerDuty?: PagerDutyChannel;
  /** @default - no Opsgenie */
  readonly opsgenie?: OpsgenieChannel;
  /** The notices bus. */
  readonly bus: IEventBus;
  /** Where pages that could not be delivered are kept. */
  readonly deadLetterQueue: IQueue;
}

/** A secret's value, or one JSON field of it, as a CloudFormation dynamic reference (never in the template). */
function secretValue(secret: ISecret, jsonField: string | undefined): SecretValue {
  return jsonField ? secret.secretValueFromJson(jsonField) : secret.secretValue;
}

/**
 * Pagers through EventBridge API destinations: a rule per pager on the notices bus sends the body
 * the notice event carries ($.detail.paging.…) — trigger for an incident that needs a human, resolve
 * when verified — with the key from Secrets Manager added by the connection, retried for 24 hours,
 * then kept in the dead-letter queue.
 */
export class Paging extends Construct {
  constructor(scope: Construct, id: string, props: PagingProps) {
    super(scope, id);
    if (props.pagerDuty) this.pagerDuty(props.pagerDuty, props);
    if (props.opsgenie) this.opsgenie(props.opsgenie, props);
  }

  private rule(id: string, props: PagingProps, actions: string[], target: ApiDestinationTarget): void {
    new Rule(this, id, {
      description: `pod-doctor: ${id} for incidents that need a human`,
      eventBus: props.bus,
      eventPattern: {
        source: [NOTICE_SOURCE],
        detailType: [NOTICE_DETAIL_TYPE],
        detail: { paging: { action: actions } },
      },
      targets: [target],
    });
  }

  /**
   * PagerDuty Events API v2 takes the integration key in the body (`routing_key`): the connection adds
   * it as a secret body parameter, and as the X-Routing-Key header the API key authorization needs.
   */
  private pagerDuty(c: PagerDutyChannel, props: PagingProps): void {
    const key = secretValue(c.routingKey, c.jsonField);
    const connection = new Connection(this, 'PagerDutyConnection', {
      description: 'pod-doctor → PagerDuty Events API v2',
      authorization: Authorization.apiKey('X-Routing-Key', key),
      bodyParameters: { routing_key: HttpParameter.fromSecret(key) },
    });
    const destination = new ApiDestination(this, 'PagerDutyEvents', {
      description: 'PagerDuty Events API v2 enqueue',
      connection,
      endpoint: 'https://events.pagerduty.com/v2/enqueue',
      httpMethod: HttpMethod.POST,
      // PagerDuty throttles per integration key; a storm of incidents queues here instead of at a 429.
      rateLimitPerSecond: 2,
    });
    this.rule(
      'PagerDuty',
      props,
      ['trigger', 'resolve'],
      new ApiDestinationTarget(destination, {
        event: RuleTargetInput.fromEventPath('$.detail.paging.pagerduty'),
        deadLetterQueue: props.deadLetterQueue,
        ...DELIVERY_RETRY,
      }),
    );
  }

  /** Opsgenie: create the alert (alias = the incident's key) to trigger, close it by alias to resolve. */
  private opsgenie(c: OpsgenieChannel, props: PagingProps): void {
    const base = c.region === 'eu' ? 'https://api.eu.opsgenie.com' : 'https://api.opsgenie.com';
    const connection = new Connection(this, 'OpsgenieConnection', {
      description: 'pod-doctor → Opsgenie Alert API',
      authorization: Authorization.apiKey('Authorization', secretValue(c.apiKey, c.jsonField)),
    });
    const create = new ApiDestination(this, 'OpsgenieCreate', {
      description: 'Opsgenie create alert',
      connection,
      endpoint: `${base}/v2/alerts`,
      httpMethod: HttpMethod.POST,
      rateLimitPerSecond: 5,
    });
    const close = new ApiDestination(this, 'OpsgenieClose', {
      description: 'Opsgenie close alert by alias',
      connection,
      endpoint: `${base}/v2/alerts/*/close`,
      httpMethod: HttpMethod.POST,
      rateLimitPerSecond: 5,
    });
    const retry = { deadLetterQueue: props.deadLetterQueue, ...DELIVERY_RETRY };
    this.rule(
      'OpsgenieTrigger',
      props,
      ['trigger'],
      new ApiDestinationTarget(create, {
        event: RuleTargetInput.fromEventPath('$.detail.paging.opsgenie.create'),
        ...retry,
      }),
    );
    this.rule(
      'OpsgenieResolve',
      props,
      ['resolve'],
      new ApiDestinationTarget(close, {
        event: RuleTargetInput.fromEventPath('$.detail.paging.opsgenie.close'),
        pathParameterValues: ['$.detail.paging.dedupKey'],
        queryStringParameters: { identifierType: 'alias' },
        ...retry,
      }),
    );
  }
}
