import { GetInstanceProfileCommand, type IAMClient } from '@aws-sdk/client-iam';
import { clusterOfTags } from '../../../core/contract/node-tags.js';
import { DescribeInstancesCommand, type Ec2Client } from '../../ec2/commands.js';

/** Everything the checks need to know about the node a failure happened on. */
export interface NodeContext {
  readonly instanceId: string;
  readonly privateDnsName?: string;
  readonly clusterName?: string;
  readonly nodegroupName?: string;
  readonly instanceType?: string;
  readonly architecture?: string;
  readonly subnetId?: string;
  readonly vpcId?: string;
  readonly availabilityZone?: string;
  readonly securityGroupIds: readonly string[];
  readonly privateIp?: string;
  readonly amiId?: string;
  readonly instanceProfileArn?: string;
  readonly roleName?: string;
  readonly roleArn?: string;
}

export class NodeNotFoundError extends Error {
  override readonly name = 'NodeNotFoundError';
}

/** The instance exists but its tags put it in another cluster than the incident's. */
export class NodeNotInClusterError extends Error {
  override readonly name = 'NodeNotInClusterError';
}

const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;

/**
 * Finds the instance behind a node name (private DNS name) or instance id, and its role. With
 * `cluster`, the instance must carry that cluster's tag (eks:cluster-name, aws:eks:cluster-name or
 * kubernetes.io/cluster/<name>=owned), or NodeNotInClusterError.
 */
export async function resolveNode(
  ec2: Ec2Client,
  iam: IAMClient,
  node: string,
  cluster?: string,
): Promise<NodeContext> {
  const byId = INSTANCE_ID.test(node);
  const r = await ec2.send(
    new DescribeInstancesCommand(
      byId
        ? { InstanceIds: [node] }
        : { Filters: [{ Name: 'private-dns-name', Values: [node.includes('.') ? node : `${node}.*`] }] },
    ),
  );
  const instance = r.Reservations?.flatMap((x) => x.Instances ?? [])[0];
  if (!instance?.InstanceId) throw new NodeNotFoundError(`no EC2 instance for node ${node}`);
  if (cluster !== undefined && clusterOfTags(instance.Tags) !== cluster) {
    throw new NodeNotInClusterError(
      `instance ${instance.InstanceId} is tagged for cluster ${clusterOfTags(instance.Tags) ?? '(none)'}, not ${cluster}: diagnose only`,
    );
  }
  const profileArn = instance.IamInstanceProfile?.Arn;
  let roleName: string | undefined;
  let roleArn: string | undefined;
  if (profileArn) {
    const profileName = profileArn.split('/').pop();
    const p = await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: profileName }));
    roleName = p.InstanceProfile?.Roles?.[0]?.RoleName;
    roleArn = p.InstanceProfile?.Roles?.[0]?.Arn;
  }
  const eni = instance.NetworkInterfaces?.find((n) => n.Attachment?.DeviceIndex === 0);
  return {
    instanceId: instance.InstanceId,
    privateDnsName: instance.PrivateDnsName,
    clusterName: clusterOfTags(instance.Tags),
    nodegroupName: instance.Tags?.find((t) => t.Key === 'eks:nodegroup-name')?.Value,
    instanceType: instance.InstanceType,
    architecture: instance.Architecture,
    subnetId: instance.SubnetId,
    vpcId: instance.VpcId,
    availabilityZone: instance.Placement?.AvailabilityZone,
    securityGroupIds: (eni?.Groups ?? instance.SecurityGroups ?? []).map((g) => g.GroupId ?? '').filter(Boolean),
    privateIp: instance.PrivateIpAddress,
    amiId: instance.ImageId,
    instanceProfileArn: profileArn,
    roleName,
    roleArn,
  };
}
