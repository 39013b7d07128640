import type { Cluster } from '@aws-sdk/client-eks';
import type { PreflightRow } from './preflight-row.js';

const NO_API = (name: string) =>
  `or set "kubernetesApi": false on cluster ${name} in the pod-doctor configuration: no access entry, the cluster is watched through its logs, CloudTrail and Run Command, cluster remedies are recommended`;

/**
 * Can pod-doctor's access entries exist? Access entries need authentication mode `API` or
 * `API_AND_CONFIG_MAP`; CloudFormation refuses them on a `CONFIG_MAP` cluster and the whole
 * deployment fails (https://docs.aws.amazon.com/eks/latest/userguide/grant-k8s-access.html).
 */
export function authenticationModeRow(cluster: Cluster): PreflightRow {
  const name = cluster.name ?? '?';
  const mode = cluster.accessConfig?.authenticationMode;
  if (mode === 'API' || mode === 'API_AND_CONFIG_MAP')
    return {
      id: 'eks.authentication-mode',
      status: 'pass',
      detail: `authentication mode ${mode} accepts access entries`,
    };
  return {
    id: 'eks.authentication-mode',
    status: mode === 'CONFIG_MAP' ? 'fail' : 'unknown',
    detail: mode
      ? `authentication mode ${mode}: CloudFormation refuses pod-doctor's access entries, failing the deployment`
      : 'DescribeCluster reports no authentication mode (a cluster that predates access entries uses CONFIG_MAP)',
    fix: `aws eks update-cluster-config --name ${name} --access-config authenticationMode=API_AND_CONFIG_MAP (the aws-auth ConfigMap keeps working; there is no way back to CONFIG_MAP), ${NO_API(name)}`,
  };
}

/**
 * Can pod-doctor's Kubernetes functions reach the API server? They run outside any VPC and connect
 * from AWS-owned public addresses that are not fixed: only a public endpoint open to 0.0.0.0/0 is
 * reachable (https://docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html).
 */
export function endpointAccessRow(cluster: Cluster): PreflightRow {
  const name = cluster.name ?? '?';
  const vpc = cluster.resourcesVpcConfig;
  const cidrs = vpc?.publicAccessCidrs ?? [];
  if (vpc?.endpointPublicAccess && cidrs.includes('0.0.0.0/0'))
    return {
      id: 'eks.endpoint-access',
      status: 'pass',
      detail:
        'public endpoint open to 0.0.0.0/0: reachable by the Kubernetes functions (authenticated by access entry)',
    };
  const detail =
    vpc?.endpointPublicAccess === false
      ? 'private endpoint only: reachable from the cluster VPC, not by the Kubernetes functions (they run outside any VPC)'
      : vpc?.endpointPublicAccess
        ? `public endpoint limited to ${cidrs.join(', ')}: the Kubernetes functions connect from AWS addresses that are not fixed and not in that list`
        : 'DescribeCluster reports no endpoint access settings';
  return {
    id: 'eks.endpoint-access',
    status: vpc?.endpointPublicAccess === undefined ? 'unknown' : 'fail',
    detail,
    fix: `Kubernetes reads would time out (3 s connect) and count as ClusterReadFailed: open the public endpoint to 0.0.0.0/0 (aws eks update-cluster-config --name ${name} --resources-vpc-config endpointPublicAccess=true,publicAccessCidrs=0.0.0.0/0), ${NO_API(name)}`,
  };
}
