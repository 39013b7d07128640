/** Every channel kind configured, as a cdk.json `pod-doctor.channels` value (ids of the shapes the consoles show). */
const SECRET = (name: string) => `arn:aws:secretsmanager:eu-west-1:111122223333:secret:${name}-AbC123`;
export const CHANNELS = {
  slack: [{ workspaceId: 'T0123ABCD', channelId: 'C0123ABCD' }],
  teams: [
    {
      teamId: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      tenantId: '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e',
      channelId: '19%3ab6ef35dc342d56ba5654e6fc6d25a071%40thread.tacv2',
      channelName: 'eks-oncall',
    },
  ],
  pagerDuty: { routingKeySecretArn: SECRET('pod-doctor/pagerduty'), jsonField: 'routingKey' },
  opsgenie: { apiKeySecretArn: SECRET('pod-doctor/opsgenie'), region: 'eu' },
};
