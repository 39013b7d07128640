/**
 * Where pod-doctor's Kubernetes functions reach a cluster's API server from (issue 36): outside any
 * VPC (the default, a public endpoint open to Lambda's addresses) or from inside the cluster's VPC,
 * where a copy of each function runs for the clusters of that VPC. The configuration document names
 * each placed cluster's VPC (`clusters[].reach`); a scheduled function placed in a VPC has its id in
 * `CLUSTER_REACH` and serves only those clusters, the one outside any VPC only the others.
 */

/** The environment variable of a scheduled function placed in a VPC: that VPC's id. */
export const CLUSTER_REACH_VARIABLE = 'CLUSTER_REACH';

/** A configured cluster as far as its reach goes. */
export interface ReachedCluster {
  readonly name: string;
  /** false: no access entry (CONFIG_MAP, or turned off); absent: true. */
  readonly kubernetesApi?: boolean;
  /** The VPC its API server is reached from; absent: from outside any VPC. */
  readonly reach?: string;
}

/**
 * The clusters a function serves: those with Kubernetes API access whose reach is the function's
 * (`reach` undefined: the function runs outside any VPC and serves the clusters without one).
 */
export function clustersServed(clusters: readonly ReachedCluster[], reach: string | undefined): string[] {
  const mine = reach === '' ? undefined : reach;
  return clusters.filter((c) => c.kubernetesApi !== false && c.reach === mine).map((c) => c.name);
}

/** The endpoint fields of `DescribeCluster`'s `resourcesVpcConfig` (the EKS API's shape). */
export interface EndpointAccess {
  readonly vpcId?: string;
  readonly subnetIds?: readonly string[];
  readonly clusterSecurityGroupId?: string;
  readonly endpointPublicAccess?: boolean;
  readonly endpointPrivateAccess?: boolean;
  readonly publicAccessCidrs?: readonly string[];
}

/** Lambda's addresses outside a VPC are AWS's and not fixed: only a public endpoint open to all admits them. */
export const OPEN_TO_ALL = '0.0.0.0/0';

/**
 * How a function outside any VPC reaches the cluster's API server: `public` (public endpoint open to
 * 0.0.0.0/0), else `vpc` when the private endpoint is on (the functions must run in the cluster's VPC),
 * else `none` (public endpoint limited to CIDRs and no private endpoint: only from those CIDRs, through
 * a NAT whose address is listed).
 */
export function endpointReach(access: EndpointAccess): 'public' | 'vpc' | 'none' {
  const open =
    access.endpointPublicAccess !== false && (access.publicAccessCidrs ?? [OPEN_TO_ALL]).includes(OPEN_TO_ALL);
  if (open) return 'public';
  return access.endpointPrivateAccess ? 'vpc' : 'none';
}
