import type { IManagedPolicy } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';

/** A Slack channel Amazon Q Developer in chat applications posts incident cards to. */
export interface SlackChannel {
  /** Slack workspace (team) id, as the Amazon Q Developer console shows it after the one-time authorization, e.g. `T0123ABCD`. */
  readonly workspaceId: string;
  /** Slack channel id, e.g. `C0123ABCD` (in Slack: channel details, at the bottom). */
  readonly channelId: string;
}

/** A Microsoft Teams channel Amazon Q Developer in chat applications posts incident cards to. */
export interface TeamsChannel {
  /** Team id, from the Amazon Q Developer console after the one-time authorization with Teams. */
  readonly teamId: string;
  /** Microsoft Entra tenant id, from the same console page. */
  readonly tenantId: string;
  /** Channel id, e.g. `19%3ab6ef35dc342d56ba5654e6fc6d25a071%40thread.tacv2`. */
  readonly channelId: string;
  /**
   * Channel name, for the console.
   * @default - none
   */
  readonly channelName?: string;
}

/** PagerDuty Events API v2: the integration key of an Events API v2 integration of a service. */
export interface PagerDutyChannel {
  /** Secret holding the integration (routing) key; EventBridge's connection adds it to each request. */
  readonly routingKey: ISecret;
  /**
   * The JSON field of the secret that holds the key.
   * @default - the whole secret string is the key
   */
  readonly jsonField?: string;
}

/** Opsgenie Alert API with the key of an API integration. */
export interface OpsgenieChannel {
  /** Secret holding the `Authorization` header value: `GenieKey <API integration key>`. */
  readonly apiKey: ISecret;
  /**
   * The JSON field of the secret that holds the header value.
   * @default - the whole secret string
   */
  readonly jsonField?: string;
  /**
   * Where the account lives: `us` (api.opsgenie.com) or `eu` (api.eu.opsgenie.com).
   * @default 'us'
   */
  readonly region?: 'us' | 'eu';
}

/**
 * Where pod-doctor speaks besides e-mail: chat channels (incident cards, one thread per incident)
 * and pagers (an alert per incident that needs a human, resolved when verified). Nothing is created
 * for a channel that is not configured.
 */
export interface NotificationChannels {
  /** Slack channels that receive the incident cards. @default - none */
  readonly slack?: readonly SlackChannel[];
  /** Microsoft Teams channels that receive the incident cards. @default - none */
  readonly teams?: readonly TeamsChannel[];
  /** PagerDuty, paged for incidents that need a human. @default - none */
  readonly pagerDuty?: PagerDutyChannel;
  /** Opsgenie, paged for incidents that need a human. @default - none */
  readonly opsgenie?: OpsgenieChannel;
  /**
   * Guardrails of the chat channels: the most any channel member may do through Amazon Q Developer.
   * @default - the AWS managed policy ReadOnlyAccess
   */
  readonly chatGuardrailPolicies?: readonly IManagedPolicy[];
}

/** A Slack or Teams channel is configured: the chat cards' Approve and Reject have somewhere to be pressed. */
export function hasChat(c: NotificationChannels | undefined): boolean {
  return Boolean(c?.slack?.length || c?.teams?.length);
}

/** Is any channel configured (then the notices pipe, bus and table stream exist)? */
export function hasChannels(c: NotificationChannels | undefined): boolean {
  return (
    (c?.slack?.length ?? 0) + (c?.teams?.length ?? 0) > 0 || c?.pagerDuty !== undefined || c?.opsgenie !== undefined
  );
}
