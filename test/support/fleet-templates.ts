import { App } from 'aws-cdk-lib';
import { buildFleet, type FleetSettings } from '../../examples/fleet/fleet-app.js';
import type { CfnResource } from '../../local/template.js';

type Template = { Resources: Record<string, CfnResource> };

/** The example's organization, hub and members, three member accounts in two Regions. */
export const FLEET: FleetSettings = {
  name: 'eks-fleet',
  organizationId: 'o-a1b2c3d4e5',
  organizationalUnits: ['ou-ab12-cdef3456'],
  // The hub in the local runtime's own account: its functions run under the local guard as they do single-account.
  hub: { account: '111122223333', region: 'eu-west-1' },
  members: [
    { account: '222222222222', regions: ['eu-west-1', 'us-east-1'] },
    { account: '333333333333', regions: ['eu-west-1', 'us-east-1'] },
    { account: '444444444444', regions: ['eu-west-1', 'us-east-1'] },
  ],
  hubClusters: [{ name: 'platform-prod', logGroups: ['/aws/containerinsights/platform-prod/dataplane'] }],
  clusters: {
    '222222222222': [{ name: 'payments-prod', logGroups: ['/aws/containerinsights/payments-prod/dataplane'] }],
    '333333333333': [{ name: 'search-prod', logGroups: ['/aws/containerinsights/search-prod/dataplane'] }],
    '444444444444': [{ name: 'payments-prod', logGroups: ['/aws/containerinsights/payments-prod/dataplane'] }],
  },
  notificationEmails: ['oncall@example.com'],
  assetBucketPrefix: 'pod-doctor-eks-fleet-spoke-assets',
};

const cache = new Map<string, Record<string, Template>>();

/** Every stack of the fleet example for `settings`, synthesized without bundling (cdk-nag included; the StackSet form needs bundled code: template tier), by stack name. */
export function fleetTemplates(settings: FleetSettings = FLEET): Record<string, Template> {
  const key = JSON.stringify(settings);
  const hit = cache.get(key);
  if (hit) return hit;
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  buildFleet(app, settings, { stackSet: false });
  const assembly = app.synth();
  const out = Object.fromEntries(assembly.stacks.map((s) => [s.stackName, s.template as Template]));
  cache.set(key, out);
  return out;
}
