/**
 * The public API of pod-doctor: the constructs a CDK app instantiates, their props, and the types of
 * what they expose. Everything else under lib/ is internal. etc/pod-doctor.api.md records this
 * surface; `npm test` fails when it changes without that report (npm run api:report).
 *
 * Exported: the constructs and stacks a user instantiates (PodDoctor, PodDoctorStack, the IAM event
 * forwarder, the fleet's hub and spokes) with their props, and the configuration types, failure-class
 * names and modes the props use. The constructs a PodDoctor is built of are internal: its members that
 * hold them carry the internal release tag and are stripped from the published declarations
 * (stripInternal in tsconfig.build.json).
 */

export {
  CLASS_MODES,
  type ClassMode,
  FAILURE_CLASSES,
  type FailureClass,
} from '../lambdas/core/contract/failure-classes.js';
export type { FleetMember } from '../lambdas/core/fleet/fleet.js';
export type { IngestLimits } from '../lambdas/core/incident/ingest-limits.js';
export { REMEDY_TIERS, type RemedyTier } from '../lambdas/core/remedy/apply-path.js';
export {
  ConfigError,
  type PodDoctorConfig,
  type PodDoctorConfigInput,
  parseConfig,
  podDoctorConfigSchema,
} from './config.js';
export type {
  NotificationChannels,
  OpsgenieChannel,
  PagerDutyChannel,
  SlackChannel,
  TeamsChannel,
} from './constructs/channels/channel-props.js';
export {
  PodDoctorHubStack,
  PodDoctorSpokeAssetsStack,
  PodDoctorSpokeStack,
  PodDoctorSpokeStackSet,
  type PodDoctorSpokeStackSetProps,
} from './fleet-stacks.js';
export { IamEventForwarderStack, type IamEventForwarderStackProps } from './iam-event-forwarder-stack.js';
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
