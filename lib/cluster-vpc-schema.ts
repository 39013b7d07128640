import { z } from 'zod';

/**
 * `clusters[].vpc`: the cluster's VPC (`resourcesVpcConfig`), for a cluster whose API endpoint
 * pod-doctor cannot reach from outside it (private only, or public limited to CIDRs): the functions
 * that talk to its API server run there, one set per VPC, admitted on 443 by the cluster security
 * group. Absent: the CDK context value `pod-doctor:cluster-vpc:<region>:<name>` when its endpoint is
 * not open to 0.0.0.0/0 (lib/cluster-vpc-context.ts).
 */
export const clusterVpcSchema = z.strictObject({
  vpcId: z.string().regex(/^vpc-[0-9a-f]{8,17}$/, 'must be a VPC id (vpc-...)'),
  /** Subnets the functions get their network interfaces in (the cluster's, or others of its VPC). */
  subnetIds: z
    .array(z.string().regex(/^subnet-[0-9a-f]{8,17}$/, 'must be a subnet id (subnet-...)'))
    .min(1)
    .max(16),
  /** The cluster security group EKS created (`clusterSecurityGroupId`): it gets the 443 rule. */
  clusterSecurityGroupId: z.string().regex(/^sg-[0-9a-f]{8,17}$/, 'must be a security group id (sg-...)'),
});
