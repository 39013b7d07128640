import type { Attribution, NodeGroupRef } from './release-attribution.js';

/**
 * The pin or rollback an attributed release regression calls for, per node group (issue 35,
 * part 1), pure. What is supported, and what is a recommendation only:
 *
 * - EKS managed node groups: the door's `pin-nodegroup-release` (eks:UpdateNodegroupVersion with the
 *   previous `releaseVersion`, or the previous launch template version for a group launched from a
 *   template), always approval-gated, the failing version recorded for the roll-forward. Refused when
 *   the group is mid-upgrade (status not ACTIVE) or already runs the previous version (pinned).
 * - Karpenter NodePools/EC2NodeClasses: a recommendation (the EC2NodeClass `amiSelectorTerms` alias
 *   pinned to the previous release, e.g. `al2023@v20260505`); pod-doctor does not write Karpenter's
 *   objects.
 * - Self-managed groups (an Auto Scaling group and its launch template): a recommendation (the
 *   group's launch template version set back); pod-doctor holds no Auto Scaling write.
 * - An add-on (vpc-cni) version: a recommendation (eks:UpdateAddon with the previous version).
 */

/** A managed node group as EKS DescribeNodegroup returns it (the fields the pin needs). */
export interface NodegroupFacts {
  readonly name: string;
  /** ACTIVE, UPDATING, CREATING, DEGRADED, … */
  readonly status: string;
  readonly releaseVersion?: string;
  readonly version?: string;
  readonly amiType?: string;
  readonly launchTemplate?: { readonly id?: string; readonly name?: string; readonly version?: string };
}

export interface NodegroupPin {
  readonly kind: 'pin-nodegroup-release';
  readonly nodegroup: string;
  /** The version the group goes back to. */
  readonly to: { readonly releaseVersion?: string; readonly launchTemplateVersion?: string };
  /** The failing version, recorded for the roll-forward once a fixed release exists. */
  readonly from: { readonly releaseVersion?: string; readonly launchTemplateVersion?: string };
  readonly kubernetesVersion?: string;
}

export type PinProposal =
  | { readonly group: NodeGroupRef; readonly action: NodegroupPin; readonly reason: string }
  | { readonly group: NodeGroupRef; readonly recommend: string }
  | { readonly group: NodeGroupRef; readonly refused: string };

type Attributed = Extract<Attribution, { status: 'attributed' }>;

/** `1.34.7-20260505` → `v20260505` (the amazon-eks-ami release tag, Karpenter's alias version). */
export function releaseTag(releaseVersion: string): string | undefined {
  const m = /-(\d{8})$/.exec(releaseVersion) ?? /^v?(\d{8})$/.exec(releaseVersion);
  return m ? `v${m[1]}` : undefined;
}

function managedPin(a: Attributed, g: NodeGroupRef, ng: NodegroupFacts | undefined): PinProposal {
  if (!ng) return { group: g, refused: `node group ${g.name} could not be read (DescribeNodegroup): nothing proposed` };
  if (ng.status !== 'ACTIVE')
    return {
      group: g,
      refused: `node group ${g.name} is ${ng.status} (mid-upgrade or not ready): no pin while it changes`,
    };
  const kubernetesVersion = ng.version ? { kubernetesVersion: ng.version } : {};
  if (a.attribute === 'ami-release') {
    if (ng.amiType === 'CUSTOM' || ng.releaseVersion === undefined)
      return {
        group: g,
        recommend: `node group ${g.name} runs a custom AMI from its launch template: set the template's AMI back to the release before ${a.value}`,
      };
    if (ng.releaseVersion === a.previous)
      return {
        group: g,
        refused: `node group ${g.name} is already pinned to ${a.previous}: its failing nodes are older than the pin, replace them`,
      };
    if (ng.releaseVersion !== a.value)
      return {
        group: g,
        refused: `node group ${g.name} runs release ${ng.releaseVersion ?? 'unknown'}, not ${a.value}: the attribution is stale`,
      };
    return {
      group: g,
      action: {
        kind: 'pin-nodegroup-release',
        nodegroup: g.name,
        to: { releaseVersion: a.previous },
        from: { releaseVersion: a.value },
        ...kubernetesVersion,
      },
      reason: `pin node group ${g.name} to AMI release ${a.previous} (from ${a.value}): ${a.line}`,
    };
  }
  if (a.attribute === 'launch-template-version') {
    if (!ng.launchTemplate?.id && !ng.launchTemplate?.name)
      return { group: g, refused: `node group ${g.name} has no launch template: nothing to set back` };
    if (ng.launchTemplate.version === a.previous)
      return { group: g, refused: `node group ${g.name} already uses launch template version ${a.previous}` };
    return {
      group: g,
      action: {
        kind: 'pin-nodegroup-release',
        nodegroup: g.name,
        to: { launchTemplateVersion: a.previous },
        from: { launchTemplateVersion: a.value },
        ...kubernetesVersion,
      },
      reason: `set node group ${g.name} back to launch template version ${a.previous} (from ${a.value}): ${a.line}`,
    };
  }
  return recommendation(a, g);
}

function recommendation(a: Attributed, g: NodeGroupRef): PinProposal {
  if (a.attribute === 'addon-vpc-cni')
    return {
      group: g,
      recommend: `set the vpc-cni add-on back to ${a.previous} (aws eks update-addon --addon-version ${a.previous}), from ${a.value}`,
    };
  if (g.kind === 'karpenter') {
    const tag = a.attribute === 'ami-release' ? releaseTag(a.previous) : undefined;
    return {
      group: g,
      recommend: tag
        ? `pin the EC2NodeClass of NodePool ${g.name} to the previous release: amiSelectorTerms: [{ alias: al2023@${tag} }] (pod-doctor does not write Karpenter objects)`
        : `pin the EC2NodeClass of NodePool ${g.name} to the AMI before ${a.value} (pod-doctor does not write Karpenter objects)`,
    };
  }
  if (g.kind === 'self-managed')
    return {
      group: g,
      recommend:
        a.attribute === 'launch-template-version'
          ? `set Auto Scaling group ${g.name} back to launch template version ${a.previous} (pod-doctor holds no Auto Scaling write)`
          : `set the AMI of Auto Scaling group ${g.name}'s launch template back to the one before ${a.value} (pod-doctor holds no Auto Scaling write)`,
    };
  return {
    group: g,
    recommend: `${a.attribute} ${a.value} comes with the node's AMI: pin the AMI release before it on node group ${g.name}`,
  };
}

/** The pin per node group that runs the attributed value. */
export function pinProposals(a: Attributed, nodegroups: ReadonlyMap<string, NodegroupFacts>): PinProposal[] {
  return a.groups.map((g) => (g.kind === 'managed' ? managedPin(a, g, nodegroups.get(g.name)) : recommendation(a, g)));
}

/**
 * Whether a node-level action on this node should stop: its group is attributed a release regression
 * for the class, so repairing it (or a replacement onto the same release) does not help.
 */
export function releaseBlock(
  a: Attribution,
  node: { readonly group?: NodeGroupRef; readonly value?: string },
): string | undefined {
  if (a.status !== 'attributed' || node.value !== a.value) return undefined;
  return `release regression: ${a.line}; node-by-node repair stopped, the node group is pinned instead`;
}
