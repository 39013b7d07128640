import type { NodeGroupRef, NodeRelease, ReleaseAttribute } from './release-attribution.js';

/**
 * A node's release facts from AWS- and node-rank sources only (issue 35, part 1): the AMI from EC2
 * (`DescribeInstances` ImageId, `DescribeImages` Name), the group from the Auto Scaling group AWS
 * tagged the instance with (`aws:autoscaling:groupName`, a reserved prefix no one else can write)
 * matched to EKS `DescribeNodegroup` resources, Karpenter's NodePool from the Node object's
 * `karpenter.sh/nodepool` label, the kubelet and containerd versions from the kubelet's own
 * `status.nodeInfo`. Never a log line, a pod or an Event.
 */

/** EKS-optimized AMI names: `amazon-eks-node-al2023-x86_64-standard-1.34-v20260520`, `amazon-eks-node-1.30-v20240202`, `amazon-eks-gpu-node-1.29-v20240315`. */
const EKS_AMI = /^amazon-eks-(?:gpu-|arm64-)?node-(?:al2023-[a-z0-9_]+-[a-z]+-)?(\d+\.\d+)-v(\d{8})$/;
const KUBELET = /^v(\d+)\.(\d+)\.(\d+)/;

/**
 * The EKS release version of an EKS-optimized AMI (node group `releaseVersion`: `1.34.7-20260520`):
 * the Kubernetes patch version the node's kubelet reports and the AMI's build date. Undefined for an
 * AMI that is not EKS-optimized (a custom AMI: its image id is the fact then).
 */
export function amiReleaseVersion(
  imageName: string | undefined,
  kubeletVersion: string | undefined,
): string | undefined {
  const ami = imageName ? EKS_AMI.exec(imageName) : null;
  if (!ami) return undefined;
  const k = kubeletVersion ? KUBELET.exec(kubeletVersion) : null;
  if (k && `${k[1]}.${k[2]}` === ami[1]) return `${k[1]}.${k[2]}.${k[3]}-${ami[2]}`;
  return `${ami[1]}-${ami[2]}`;
}

/** `containerd://2.2.3` → `2.2.3`. */
const runtimeVersion = (v: string | undefined) => v?.replace(/^containerd:\/\//, '') || undefined;

export interface NodeReleaseInput {
  readonly instanceId: string;
  readonly imageId?: string;
  readonly imageName?: string;
  readonly launchTime: string;
  /** The instance's `aws:autoscaling:groupName` tag (AWS-reserved). */
  readonly autoScalingGroup?: string;
  /** The launch template version EC2 launched it from (`aws:ec2launchtemplate:version`, AWS-reserved). */
  readonly launchTemplateVersion?: string;
  /** The Node object's `karpenter.sh/nodepool` label. */
  readonly karpenterNodePool?: string;
  /** `status.nodeInfo` (kubelet). */
  readonly kubeletVersion?: string;
  readonly containerRuntimeVersion?: string;
}

/** A node's group and release attributes; `managedGroups`: Auto Scaling group name → managed node group (DescribeNodegroup). */
export function nodeRelease(n: NodeReleaseInput, managedGroups: ReadonlyMap<string, string>): NodeRelease {
  const managed = n.autoScalingGroup ? managedGroups.get(n.autoScalingGroup) : undefined;
  const group: NodeGroupRef = managed
    ? { kind: 'managed', name: managed }
    : n.karpenterNodePool
      ? { kind: 'karpenter', name: n.karpenterNodePool }
      : { kind: 'self-managed', name: n.autoScalingGroup ?? '(no Auto Scaling group)' };
  const release = amiReleaseVersion(n.imageName, n.kubeletVersion) ?? n.imageId;
  const attributes: Partial<Record<ReleaseAttribute, string>> = {
    ...(release ? { 'ami-release': release } : {}),
    ...(n.launchTemplateVersion ? { 'launch-template-version': n.launchTemplateVersion } : {}),
    ...(runtimeVersion(n.containerRuntimeVersion) ? { containerd: runtimeVersion(n.containerRuntimeVersion) } : {}),
    ...(n.kubeletVersion ? { kubelet: n.kubeletVersion } : {}),
  };
  return { instanceId: n.instanceId, group, attributes, launchedAt: n.launchTime };
}
