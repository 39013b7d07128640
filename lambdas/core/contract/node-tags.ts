/**
 * The instance tags that say which EKS cluster a node belongs to, as each kind of node really
 * carries them. SendCommand is allowed on an instance only when one of them names a configured
 * cluster, and node resolution reads the cluster from the same tags.
 *
 * - `eks:cluster-name`: managed node groups.
 * - `eks:eks-cluster-name`: Karpenter (v1) and EKS Auto Mode nodes.
 * - `kubernetes.io/cluster/<name>` = `owned`: self-managed nodes (eksctl unmanaged groups,
 *   CloudFormation/Terraform launch templates); the cluster name is in the key.
 */
export const CLUSTER_NAME_TAGS = ['eks:cluster-name', 'eks:eks-cluster-name'] as const;

/** Prefix of the ownership tag of self-managed nodes; its value is `owned`. */
export const CLUSTER_OWNERSHIP_TAG_PREFIX = 'kubernetes.io/cluster/';

/** Value of the ownership tag on instances that belong to the cluster. */
export const CLUSTER_OWNERSHIP_TAG_VALUE = 'owned';

/** One instance tag, as EC2 returns it. */
export interface InstanceTag {
  readonly Key?: string;
  readonly Value?: string;
}

/** The cluster an instance belongs to, read from the tags above (in that order), or undefined. */
export function clusterOfTags(tags: readonly InstanceTag[] = []): string | undefined {
  for (const key of CLUSTER_NAME_TAGS) {
    const value = tags.find((t) => t.Key === key)?.Value;
    if (value) return value;
  }
  const owned = tags.find(
    (t) => t.Key?.startsWith(CLUSTER_OWNERSHIP_TAG_PREFIX) && t.Value === CLUSTER_OWNERSHIP_TAG_VALUE,
  );
  return owned?.Key?.slice(CLUSTER_OWNERSHIP_TAG_PREFIX.length) || undefined;
}
