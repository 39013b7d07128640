import {
  DescribeAddonCommand,
  DescribePodIdentityAssociationCommand,
  type EKSClient,
  paginateListPodIdentityAssociations,
  ResourceNotFoundException,
} from '@aws-sdk/client-eks';
import type { NodeContext } from './node-context.js';

// Its own module: ingest resolves the aws-node role too, and must not load the IAM client for it.

/** The role the VPC CNI (aws-node) really uses: add-on IRSA role, Pod Identity association, else the node role. */
export async function cniRole(
  eks: EKSClient,
  cluster: string,
  node: NodeContext,
): Promise<{ roleArn?: string; via: string }> {
  for await (const page of paginateListPodIdentityAssociations(
    { client: eks },
    { clusterName: cluster, namespace: 'kube-system', serviceAccount: 'aws-node' },
  )) {
    const a = page.associations?.[0];
    if (a?.associationId) {
      // The list omits the role: it is one DescribePodIdentityAssociation away.
      const d = await eks.send(
        new DescribePodIdentityAssociationCommand({ clusterName: cluster, associationId: a.associationId }),
      );
      return { roleArn: d.association?.roleArn, via: `Pod Identity association ${a.associationId}` };
    }
  }
  try {
    const addon = await eks.send(new DescribeAddonCommand({ clusterName: cluster, addonName: 'vpc-cni' }));
    if (addon.addon?.serviceAccountRoleArn)
      return { roleArn: addon.addon.serviceAccountRoleArn, via: 'vpc-cni add-on service account role (IRSA)' };
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException)) throw e;
  }
  return { roleArn: node.roleArn, via: 'node instance role (no IRSA or Pod Identity for aws-node)' };
}
