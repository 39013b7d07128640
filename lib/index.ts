/**
 * The public API of pod-doctor: the constructs a CDK app instantiates, their props, and the types of
 * what they expose. Everything else under lib/ is internal. etc/pod-doctor.api.md records this
 * surface; `npm test` fails when it changes without that report (npm run api:report).
 *
 * Exported: the constructs and stacks a user instantiates (PodDoctor, PodDoctorStack, the IAM event
 * forwarder, the fleet's hub and spokes) with their props; the parts a PodDoctor exposes as members
 * (for grants and wiring); the configuration types and failure-class names the props use.
 */

export type { ClassMode, FailureClass } from '../lambdas/core/contract/failure-classes.js';
export type { FleetMember } from '../lambdas/core/fleet/fleet.js';
export type { RemedyTier } from '../lambdas/core/remedy/apply-path.js';
export { ConfigError, type PodDoctorConfig, type PodDoctorConfigInput } from './config.js';
export { AccountChecks } from './constructs/account-checks.js';
export type {
  NotificationChannels,
  OpsgenieChannel,
  PagerDutyChannel,
  SlackChannel,
  TeamsChannel,
} from './constructs/channels/channel-props.js';
export { Channels } from './constructs/channels/channels.js';
export { VpcPlacement, type VpcPlacementProps, type VpcReach } from './constructs/cluster-vpc.js';
export { ConfigStore } from './constructs/config-store.js';
export { Detection } from './constructs/detection.js';
export { DoorFunction } from './constructs/door-function.js';
export { IncidentWorkflow } from './constructs/incident-workflow.js';
export { KubernetesAccess, KubernetesSweep } from './constructs/kubernetes-access.js';
export { KubernetesEvents } from './constructs/kubernetes-events.js';
export { NodeCommands } from './constructs/node-commands.js';
export { OperationsDashboard } from './constructs/operations-dashboard.js';
export { SignalCheck } from './constructs/signal-check.js';
export {
  PodDoctorHubStack,
  PodDoctorSpokeAssetsStack,
  PodDoctorSpokeStack,
  PodDoctorSpokeStackSet,
  type PodDoctorSpokeStackSetProps,
} from './fleet-stacks.js';
export { IamEventForwarderStack, type IamEventForwarderStackProps } from './iam-event-forwarder-stack.js';
export type { ClustersInVpcs } from './kubernetes-reach.js';
export { PodDoctor, type PodDoctorResources } from './pod-doctor.js';
export { type FleetProps, PodDoctorHub, type PodDoctorHubProps } from './pod-doctor-hub.js';
export type {
  ClusterRemediation,
  ClusterVpc,
  PodDoctorCluster,
  PodDoctorProps,
  PullThroughCacheRemediation,
} from './pod-doctor-props.js';
export { PodDoctorSpoke, type PodDoctorSpokeProps, type SpokeCluster } from './pod-doctor-spoke.js';
export { PodDoctorStack, type PodDoctorStackProps } from './pod-doctor-stack.js';
