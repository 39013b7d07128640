import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import type { ClusterEndpoint } from './cluster-api.js';

export class ClusterNotReachableError extends Error {
  override readonly name = 'ClusterNotReachableError';
}

/**
 * The API endpoint and CA of a cluster (`DescribeCluster`), refusing clusters pod-doctor cannot
 * authenticate to: authentication mode CONFIG_MAP does not accept access entries.
 */
export async function describeClusterEndpoint(eks: EKSClient, name: string, region: string): Promise<ClusterEndpoint> {
  const { cluster } = await eks.send(new DescribeClusterCommand({ name }));
  const mode = cluster?.accessConfig?.authenticationMode;
  if (mode === 'CONFIG_MAP') {
    throw new ClusterNotReachableError(
      `cluster ${name} uses authentication mode CONFIG_MAP: set it to API_AND_CONFIG_MAP so pod-doctor's access entry applies`,
    );
  }
  if (!cluster?.endpoint || !cluster.certificateAuthority?.data) {
    throw new ClusterNotReachableError(
      `cluster ${name} has no API endpoint yet (status ${cluster?.status ?? 'unknown'})`,
    );
  }
  return { name, region, endpoint: cluster.endpoint, certificateAuthorityData: cluster.certificateAuthority.data };
}

/** Endpoints per cluster for the life of the execution environment (they do not change). */
export function endpointCache(eks: EKSClient, region: string): (name: string) => Promise<ClusterEndpoint> {
  const cache = new Map<string, Promise<ClusterEndpoint>>();
  return (name) => {
    let e = cache.get(name);
    if (!e) {
      e = describeClusterEndpoint(eks, name, region);
      e.catch(() => cache.delete(name));
      cache.set(name, e);
    }
    return e;
  };
}
