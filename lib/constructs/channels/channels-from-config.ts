import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { PodDoctorConfig } from '../../config.js';
import type { NotificationChannels } from './channel-props.js';

/** A secret the configuration names by its complete ARN. */
function secretOf(scope: Construct, id: string, arn: string): ISecret {
  return Secret.fromSecretCompleteArn(scope, id, arn);
}

/** The channels of a cdk.json configuration as construct props (secrets referenced, never read at synth). */
export function channelsFromConfig(scope: Construct, c: PodDoctorConfig['channels']): NotificationChannels {
  return {
    slack: c.slack,
    teams: c.teams,
    ...(c.pagerDuty
      ? {
          pagerDuty: {
            routingKey: secretOf(scope, 'PagerDutyRoutingKey', c.pagerDuty.routingKeySecretArn),
            jsonField: c.pagerDuty.jsonField,
          },
        }
      : {}),
    ...(c.opsgenie
      ? {
          opsgenie: {
            apiKey: secretOf(scope, 'OpsgenieApiKey', c.opsgenie.apiKeySecretArn),
            jsonField: c.opsgenie.jsonField,
            region: c.opsgenie.region,
          },
        }
      : {}),
  };
}
