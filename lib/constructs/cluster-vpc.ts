import { Stack } from 'aws-cdk-lib';
import { CfnSecurityGroup, CfnSecurityGroupIngress } from 'aws-cdk-lib/aws-ec2';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { CLUSTER_REACH_VARIABLE } from '../../lambdas/core/contract/cluster-reach.js';
import type { PodDoctorConfig } from '../config.js';
import { acknowledgeNetworkInterfaces } from './nag.js';
import type { PodDoctorFunction } from './pod-doctor-function.js';

type Cluster = PodDoctorConfig['clusters'][number];

/** The clusters of one VPC whose API server pod-doctor reaches from inside it. */
export interface VpcReach {
  /** The VPC id: the reach's name (the config document's `clusters[].reach`, the functions' `CLUSTER_REACH`). */
  readonly vpcId: string;
  /** Every subnet the clusters of the VPC name, in order, without repeats. */
  readonly subnetIds: readonly string[];
  /** The cluster security groups (one per cluster, shared ones once). */
  readonly clusterSecurityGroupIds: readonly string[];
  readonly clusters: Cluster[];
}

/** The EKS API port, the only one pod-doctor's security group opens (out) and asks the cluster's to open (in). */
export const API_PORT = 443;

/**
 * The clusters pod-doctor reaches through their API, by where the functions must run: `public` (no
 * `vpc`: outside any VPC, unchanged) and one reach per VPC, not per cluster (clusters sharing a VPC
 * share the functions).
 */
export function reachesOf(clusters: readonly Cluster[]): { public: Cluster[]; vpcs: VpcReach[] } {
  const api = clusters.filter((c) => c.kubernetesApi);
  const byVpc = new Map<string, Cluster[]>();
  for (const c of api.filter((x) => x.vpc)) {
    const id = c.vpc?.vpcId ?? '';
    byVpc.set(id, [...(byVpc.get(id) ?? []), c]);
  }
  const unique = (xs: string[]) => [...new Set(xs)];
  return {
    public: api.filter((c) => !c.vpc),
    vpcs: [...byVpc].map(([vpcId, cs]) => ({
      vpcId,
      subnetIds: unique(cs.flatMap((c) => c.vpc?.subnetIds ?? [])),
      clusterSecurityGroupIds: unique(cs.map((c) => c.vpc?.clusterSecurityGroupId ?? '')),
      clusters: cs,
    })),
  };
}

/** Props of {@link VpcPlacement}. */
export interface VpcPlacementProps {
  readonly reach: VpcReach;
}

/**
 * Where pod-doctor's Kubernetes functions run in one VPC: a security group of their own (no inbound
 * rule; outbound 443 only: the API server and the AWS endpoints), and on each cluster security group
 * one rule admitting it on 443. `place` puts a function in the VPC's subnets with that group and gives
 * its role the network-interface calls Lambda makes for it.
 */
export class VpcPlacement extends Construct {
  /** pod-doctor's security group in the VPC. */
  readonly securityGroupId: string;
  private readonly reach: VpcReach;

  constructor(scope: Construct, id: string, props: VpcPlacementProps) {
    super(scope, id);
    this.reach = props.reach;
    const group = new CfnSecurityGroup(this, 'SecurityGroup', {
      vpcId: props.reach.vpcId,
      groupDescription: `pod-doctor Kubernetes functions in ${props.reach.vpcId}: HTTPS out to the cluster API and AWS endpoints`,
      securityGroupEgress: [
        {
          ipProtocol: 'tcp',
          fromPort: API_PORT,
          toPort: API_PORT,
          cidrIp: '0.0.0.0/0',
          description: 'HTTPS: the cluster API server and the AWS API endpoints (interface endpoints or NAT)',
        },
      ],
    });
    this.securityGroupId = group.attrGroupId;
    props.reach.clusterSecurityGroupIds.forEach((clusterGroup, i) => {
      new CfnSecurityGroupIngress(this, `ClusterApiIngress${i}`, {
        groupId: clusterGroup,
        sourceSecurityGroupId: group.attrGroupId,
        ipProtocol: 'tcp',
        fromPort: API_PORT,
        toPort: API_PORT,
        description: 'pod-doctor Kubernetes functions to the cluster API server',
      });
    });
  }

  /**
   * Runs `fn` in the VPC (its subnets, pod-doctor's security group) with the network-interface grants
   * Lambda needs. `scoped`: a function that serves every configured cluster it is given (the events
   * reader, the sweep) serves those of this VPC only (`CLUSTER_REACH`).
   */
  place(fn: PodDoctorFunction, scoped = false): void {
    if (scoped) fn.addEnvironment(CLUSTER_REACH_VARIABLE, this.reach.vpcId);
    const cfn = fn.node.defaultChild as CfnFunction;
    cfn.vpcConfig = { subnetIds: [...this.reach.subnetIds], securityGroupIds: [this.securityGroupId] };
    const stack = Stack.of(this);
    const arn = (resource: string) => stack.formatArn({ service: 'ec2', resource, resourceName: '*' });
    const interfaces = arn('network-interface');
    const subnets = this.reach.subnetIds.map((s) =>
      stack.formatArn({ service: 'ec2', resource: 'subnet', resourceName: s }),
    );
    const group = stack.formatArn({ service: 'ec2', resource: 'security-group', resourceName: this.securityGroupId });
    // https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html: the execution role's calls.
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['ec2:CreateNetworkInterface'], resources: [interfaces, ...subnets, group] }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'],
        resources: [interfaces],
      }),
    );
    // DescribeNetworkInterfaces works only on every resource (no resource-level permission).
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'], resources: ['*'] }),
    );
    acknowledgeNetworkInterfaces(fn.role as IRole, interfaces);
    // Lambda creates the interfaces with the role's permissions: the function waits for them.
    const policy = fn.role?.node.tryFindChild('DefaultPolicy');
    if (policy) cfn.node.addDependency(policy);
  }
}
