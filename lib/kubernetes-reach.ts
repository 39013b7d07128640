import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { PodDoctorConfig } from './config.js';
import { reachesOf, VpcPlacement, type VpcReach } from './constructs/cluster-vpc.js';
import type { ConfigStore } from './constructs/config-store.js';
import { KubernetesAccess, KubernetesSweep } from './constructs/kubernetes-access.js';
import { KubernetesEvents } from './constructs/kubernetes-events.js';

/** The clusters of one VPC whose API server pod-doctor reaches from inside it, and what runs there for them. */
export interface ClustersInVpcs {
  readonly reach: VpcReach;
  /** pod-doctor's security group in the VPC and its rules on the cluster security groups. */
  readonly placement: VpcPlacement;
  /** The Kubernetes function there (the sweep, the events reader and the door have copies there too). */
  readonly kubernetes: KubernetesAccess;
}

/**
 * The Kubernetes function of the clusters reached from outside any VPC (construct id `Kubernetes`,
 * unchanged) and, per VPC of the others (`clusters[].vpc`), a placement and a copy of the function
 * (`Kubernetes-<vpc>`).
 */
export function kubernetesFunctions(
  scope: Construct,
  clusters: PodDoctorConfig['clusters'],
  logRetention: RetentionDays,
): { outside?: KubernetesAccess; inVpcs: ClustersInVpcs[]; outsideClusters: PodDoctorConfig['clusters'] } {
  const reaches = reachesOf(clusters);
  const outside = reaches.public.length
    ? new KubernetesAccess(scope, 'Kubernetes', { clusters: reaches.public, logRetention })
    : undefined;
  const inVpcs = reaches.vpcs.map((reach) => {
    const placement = new VpcPlacement(scope, `Vpc-${reach.vpcId}`, { reach });
    const kubernetes = new KubernetesAccess(scope, `Kubernetes-${reach.vpcId}`, {
      clusters: reach.clusters,
      logRetention,
      placement,
    });
    return { reach, placement, kubernetes };
  });
  return { outside, inVpcs, outsideClusters: reaches.public };
}

/** What the scheduled readers (sweep, events reader) of one set of clusters share. */
export interface ScheduledReadersProps {
  readonly config: PodDoctorConfig;
  readonly configStore: ConfigStore;
  readonly incidentTable: ITableV2;
  readonly evidenceBucket: IBucket;
  readonly workflow: IStateMachine;
  readonly logRetention: RetentionDays;
  /** The events reader's notices of what its limits dropped. */
  readonly topic?: ITopic;
}

/**
 * The sweep and the events reader of `clusters`: outside any VPC (`suffix` empty: construct ids
 * `KubernetesSweep`, `KubernetesEvents`, unchanged), or a VPC's copies (`-<vpc>`) placed there.
 */
export function scheduledReaders(
  scope: Construct,
  clusters: PodDoctorConfig['clusters'],
  p: ScheduledReadersProps,
  placement?: { readonly suffix: string; readonly placement: VpcPlacement },
): { sweep: KubernetesSweep; events: KubernetesEvents } {
  const common = {
    clusters,
    placement: placement?.placement,
    configStore: p.configStore,
    incidentTable: p.incidentTable,
    workflow: p.workflow,
    incidentWindow: Duration.minutes(p.config.limits.incidentWindowMinutes),
    historyRetentionDays: p.config.historyRetentionDays,
    logRetention: p.logRetention,
  };
  const suffix = placement?.suffix ?? '';
  return {
    sweep: new KubernetesSweep(scope, `KubernetesSweep${suffix}`, common),
    events: new KubernetesEvents(scope, `KubernetesEvents${suffix}`, {
      ...common,
      evidenceBucket: p.evidenceBucket,
      topic: p.topic,
    }),
  };
}
