/** What the demo scenarios are made of: their type, the log line builders, the demo deployment's configuration. */
import type { ClassMode, FailureClass } from '../lambdas/core/contract/failure-classes.js';
import type { Signal } from '../lambdas/core/contract/signals.js';
import {
  ACCOUNT,
  type AccountSnapshot,
  CLUSTER,
  ENDPOINT_SG,
  NODE_DNS,
  NODE_ID,
  NODE_ROLE,
  REGION,
  SUBNET,
} from '../local/account-snapshot.js';
import type { ClusterNetwork } from '../local/network.js';
import { LOCAL_CONFIG } from '../local/template.js';
import type { ClusterSeed } from './cluster-seeds.js';

/** The Secrets Manager secret with the Docker Hub credentials of the demo's pull-through cache rule. */
export const DOCKER_HUB_SECRET = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:ecr-pullthroughcache/docker-hub-Xy12Ab`;

/** The role the managed vpc-cni add-on gives aws-node (IRSA) in the CNI scenarios. */
export const CNI_ROLE = 'AmazonEKSVPCCNIRole';

/** The node a scenario runs on: the local containerd (a real node) or a simulated probe answer. */
export type DemoNode =
  | { readonly kind: 'local'; readonly variant: 'al2023' | 'al2' }
  | { readonly kind: 'simulated'; readonly probe: readonly { id: string; status: string; summary: string }[] };

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly lines: readonly string[];
  readonly repeat: number;
  readonly cloudTrail?: readonly string[];
  readonly account?: (a: AccountSnapshot) => void;
  readonly node: DemoNode;
  readonly modes?: Partial<Record<FailureClass, ClassMode>>;
  readonly approval?: 'approve' | 'reject' | 'timeout';
  /** The cluster's Kubernetes API on this machine, seeded so; absent: the cluster does not accept pod-doctor. */
  readonly cluster?: ClusterSeed;
  /**
   * The seeded pods' kubelet events are Warning events in the API server's event collection, read by
   * the events reader (as deployed: its role and environment) before the log path runs.
   */
  readonly eventsWatched?: boolean;
  /** The deployment's configuration for this scenario (synthesized for it). @default DEMO_CONFIG */
  readonly deployment?: unknown;
  /** Where the cluster's API endpoint listens: who may reach it. @default public, open to all */
  readonly network?: ClusterNetwork;
  /** What the demo must find (the tests hold it to this). */
  readonly expect: {
    readonly class: FailureClass;
    /** Finding ids that fail and identify the root cause. */
    readonly failing: readonly string[];
    readonly outcome: string;
    /** The node action run, if any (several: in the order they ran). */
    readonly nodeAction?: string | readonly string[];
    /** The remedy run, if any (several: the remedy, then its follow-up). */
    readonly remedy?: string | readonly string[];
    /** The signals the incident comes from. @default ['dataplane-logs'] */
    readonly signals?: readonly Signal[];
  };
}

/** A node journal line as Container Insights (Fluent Bit) ships it. */
export const ci = (message: string, unit = 'kubelet') =>
  JSON.stringify({
    hostname: NODE_DNS,
    systemd_unit: `${unit}.service`,
    ec2_instance_id: NODE_ID,
    az: `${REGION}a`,
    message,
  });
export const kubelet = (err: string, pod = 'default/web-7d9c8-x2k4q') =>
  ci(
    `E1129 10:00:01.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = ${err.replace(/"/g, '\\"')}" pod="${pod}"`,
  );
export const pull = (image: string, err: string, pod = 'payments/api-6c8d9f7b5-x2k4q') =>
  ci(
    `E1129 10:00:01.000001    3412 log.go:32] "PullImage from image service failed" err="rpc error: code = Unknown desc = failed to pull and unpack image \\"${image}\\": ${err.replace(/"/g, '\\"')}" image="${image}" pod="${pod}"`,
  );
export const ipamd = (msg: string) =>
  ci(JSON.stringify({ level: 'error', ts: '2026-11-29T10:00:01.330Z', caller: 'ipamd/ipamd.go:874', msg }), 'aws-node');

export const ECR_PAUSE = `602401143452.dkr.ecr.${REGION}.amazonaws.com/eks/pause:3.5`;

/**
 * The demo deployment's configuration: the local one (one cluster, its node role) plus the node role,
 * aws-node role, ECR endpoint security group and node subnet account remedies may change (the remedy
 * role is scoped to them).
 */
export const DEMO_CONFIG = {
  clusters: [
    {
      ...LOCAL_CONFIG.clusters[0],
      name: CLUSTER,
      region: REGION,
      remediation: {
        roles: [NODE_ROLE, CNI_ROLE],
        endpointSecurityGroups: [ENDPOINT_SG],
        subnets: [SUBNET],
        pullThroughCache: { ecrRepositoryPrefix: 'docker-hub', credentialArn: DOCKER_HUB_SECRET },
      },
    },
  ],
};

/** The managed vpc-cni add-on reports too few aws-node replicas (EKS add-on health, as DescribeAddon returns it). */
export function degradedCniAddon(a: AccountSnapshot): void {
  a.addons[0].status = 'DEGRADED';
  a.addons[0].health = {
    issues: [
      {
        code: 'InsufficientNumberOfReplicas',
        message: 'The add-on is unhealthy because it does not have the desired number of replicas.',
      },
    ],
  };
}
