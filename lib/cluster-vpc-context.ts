import { Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { type EndpointAccess, endpointReach } from '../lambdas/core/contract/cluster-reach.js';
import type { PodDoctorConfig } from './config.js';

type Cluster = PodDoctorConfig['clusters'][number];

/**
 * The CDK context key holding a cluster's `resourcesVpcConfig` (`aws eks describe-cluster`), which
 * `pod-doctor preflight --write-context` records in cdk.context.json. The CDK has no EKS context
 * provider: this is pod-doctor's own key, read at synth like a context provider's cached value.
 */
export function clusterVpcContextKey(region: string, name: string): string {
  return `pod-doctor:cluster-vpc:${region}:${name}`;
}

/**
 * The clusters with the VPC their functions run in: a cluster's own `vpc`, else the recorded context
 * value when its endpoint is not reachable from outside a VPC (private only, or public limited to
 * CIDRs), else none (outside any VPC, unchanged).
 */
export function withContextVpcs(scope: Construct, clusters: readonly Cluster[]): Cluster[] {
  return clusters.map((c) => {
    if (c.vpc || !c.kubernetesApi) return c;
    const region = c.region ?? Stack.of(scope).region;
    if (Token.isUnresolved(region)) return c;
    const recorded = scope.node.tryGetContext(clusterVpcContextKey(region, c.name)) as EndpointAccess | undefined;
    if (!recorded || endpointReach(recorded) !== 'vpc') return c;
    const { vpcId, subnetIds, clusterSecurityGroupId } = recorded;
    if (!vpcId || !subnetIds?.length || !clusterSecurityGroupId) return c;
    return { ...c, vpc: { vpcId, subnetIds: [...subnetIds], clusterSecurityGroupId } };
  });
}
