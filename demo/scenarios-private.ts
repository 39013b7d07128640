import { NODE_SG, SUBNET, VPC } from '../local/account-snapshot.js';
import type { ClusterNetwork } from '../local/network.js';
import { pauseEventsCluster } from './cluster-seeds.js';
import { DEMO_CONFIG, ECR_PAUSE, type Scenario } from './scenario-kit.js';

/**
 * Scenarios of clusters whose API endpoint is not reachable from outside their VPC (issue 36): the
 * deployment places the functions that talk to the API server in the cluster's VPC, and the local
 * network admits them only from there (local/network.ts reads the placement from the template).
 */

/** A private-only endpoint in the recorded cluster's VPC: no public access at all. */
export const PRIVATE_ENDPOINT: ClusterNetwork = {
  vpcId: VPC,
  vpcSubnetIds: [SUBNET],
  clusterSecurityGroupId: NODE_SG,
  endpointPublicAccess: false,
  endpointPrivateAccess: true,
  publicAccessCidrs: [],
};

/** The demo deployment with its cluster's VPC configured (`clusters[].vpc`, DescribeCluster's values). */
export const PRIVATE_CONFIG = {
  ...DEMO_CONFIG,
  clusters: DEMO_CONFIG.clusters.map((c) => ({
    ...c,
    vpc: { vpcId: VPC, subnetIds: [SUBNET], clusterSecurityGroupId: NODE_SG },
  })),
};

export const PRIVATE_SCENARIOS: readonly Scenario[] = [
  {
    name: 'private-endpoint-cluster',
    title:
      'Private-only API endpoint: the Kubernetes functions run in the cluster’s VPC; the events reader there sees kubelet’s FailedCreatePodSandBox events (pause image gone), the node is repaired and its pods start',
    lines: [],
    repeat: 0,
    cluster: pauseEventsCluster(ECR_PAUSE),
    eventsWatched: true,
    deployment: PRIVATE_CONFIG,
    network: PRIVATE_ENDPOINT,
    account: (a) => {
      a.cluster.resourcesVpcConfig = {
        ...a.cluster.resourcesVpcConfig,
        endpointPublicAccess: false,
        endpointPrivateAccess: true,
        publicAccessCidrs: [],
      };
    },
    node: { kind: 'local', variant: 'al2' },
    expect: {
      class: 'sandbox-image',
      failing: ['node.sandbox-image.present', 'node.sandbox-image.pinned'],
      outcome: 'repaired and verified',
      nodeAction: 'repair-pause-image',
      signals: ['kubernetes-events'],
    },
  },
];
