/**
 * The fleet example's composition, importable by tests: a hub for two member accounts in two
 * Regions, their spokes as plain CDK stacks (the multi-stage way) and the same spokes as a
 * service-managed StackSet (with its org-readable asset buckets, one per Region).
 */
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import {
  type FleetProps,
  PodDoctorHubStack,
  PodDoctorSpokeAssetsStack,
  PodDoctorSpokeStack,
  PodDoctorSpokeStackSet,
  type SpokeCluster,
} from '../../lib/index.js';

export interface FleetSettings extends FleetProps {
  readonly hub: { readonly account: string; readonly region: string };
  readonly organizationalUnits: string[];
  /** Clusters of the hub's own account (the hub is also its account's spoke, as a single-account PodDoctor). */
  readonly hubClusters: SpokeCluster[];
  /** Clusters per member account (the plain spokes subscribe their log groups). */
  readonly clusters: Record<string, SpokeCluster[]>;
  readonly notificationEmails: string[];
  readonly assetBucketPrefix: string;
}

/**
 * Adds the hub, the plain spokes and (unless `stackSet` is false: its asset copy needs bundled code)
 * the StackSet form to `app`; returns the hub stack.
 */
export function buildFleet(app: App, s: FleetSettings, { stackSet = true } = {}): PodDoctorHubStack {
  const hub = new PodDoctorHubStack(app, 'PodDoctorHub', {
    env: s.hub,
    description: 'pod-doctor fleet hub: workflow, incidents, evidence, approvals, fleet bus',
    hub: {
      clusters: s.hubClusters,
      notificationEmails: s.notificationEmails,
      fleet: { name: s.name, organizationId: s.organizationId, members: s.members },
    },
  });
  // The bus ARN is known before deploy (its name is the construct's): spokes in other accounts take it as a string.
  const hubBusArn = hub.hub.busArnForSpokes();
  const spoke = { fleet: s.name, hubAccount: s.hub.account, hubBusArn, organizationId: s.organizationId };
  for (const m of s.members)
    for (const region of m.regions)
      new PodDoctorSpokeStack(app, `PodDoctorSpoke-${m.account}-${region}`, {
        env: { account: m.account, region },
        description: `pod-doctor fleet spoke of ${m.account} in ${region}`,
        spoke: { ...spoke, clusters: s.clusters[m.account] ?? [] },
      });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  if (!stackSet) return hub;
  const regions = [...new Set(s.members.flatMap((m) => m.regions))];
  for (const region of regions)
    new PodDoctorSpokeAssetsStack(app, `PodDoctorSpokeAssets-${region}`, {
      env: { account: s.hub.account, region },
      prefix: s.assetBucketPrefix,
      organizationId: s.organizationId,
    });
  new PodDoctorSpokeStackSet(app, 'PodDoctorSpokeStackSet', {
    env: s.hub,
    spoke,
    organizationalUnits: s.organizationalUnits,
    regions,
    assetBucketPrefix: s.assetBucketPrefix,
  });
  return hub;
}
