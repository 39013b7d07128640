import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amiReleaseVersion, nodeRelease } from '../../lambdas/core/policy/node-release.js';
import {
  type AffectedNode,
  type Attribution,
  attributeRelease,
  fisherOneSided,
  type NodeRelease,
} from '../../lambdas/core/policy/release-attribution.js';
import { type NodegroupFacts, pinProposals, releaseBlock, releaseTag } from '../../lambdas/core/policy/release-pin.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

interface Fixture {
  readonly images: Record<string, string>;
  readonly nodegroup: NodegroupFacts;
  readonly kubelet: string;
  readonly old: { count: number; image: string; launchedFrom: string };
  readonly new: { count: number; image: string; launchedFrom: string };
}
const fixture = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'test/fixtures/releases/al2023-v20260520.json'), 'utf8'),
) as Fixture;
const ASG = 'eks-general-7ac8d9e0-1b2c-3d4e-5f60-718293a4b5c6';
const MANAGED = new Map([[ASG, 'general']]);

/** The cluster of #2729: 40 nodes on the release before, 12 launched on v20260520 (EC2, EKS, kubelet facts). */
function cluster(
  o: { old?: number; new?: number; group?: Partial<Parameters<typeof nodeRelease>[0]> } = {},
): NodeRelease[] {
  const make = (which: 'old' | 'new', count: number) =>
    Array.from({ length: count }, (_, i) =>
      nodeRelease(
        {
          instanceId: `i-0${which === 'old' ? 'a' : 'b'}${String(i).padStart(15, '0')}`,
          imageId: fixture[which].image,
          imageName: fixture.images[fixture[which].image],
          launchTime: new Date(Date.parse(fixture[which].launchedFrom) + i * 60_000).toISOString(),
          autoScalingGroup: ASG,
          kubeletVersion: fixture.kubelet,
          containerRuntimeVersion: which === 'old' ? 'containerd://2.2.3' : 'containerd://2.3.0',
          ...o.group,
        },
        MANAGED,
      ),
    );
  return [...make('old', o.old ?? fixture.old.count), ...make('new', o.new ?? fixture.new.count)];
}
const affectedNew = (nodes: readonly NodeRelease[], namespaces = ['kube-system', 'default']): AffectedNode[] =>
  nodes.filter((n) => n.instanceId.startsWith('i-0b')).map((n) => ({ instanceId: n.instanceId, namespaces }));

const attributed = (a: Attribution) => {
  if (a.status !== 'attributed') throw new Error(`not attributed: ${a.line}`);
  return a;
};

describe("Fisher's exact test, one-sided", () => {
  it('matches hand-computed hypergeometric tails', () => {
    // Lady tasting tea: 3 of 4 right, one-sided p = 17/70.
    expect(fisherOneSided(3, 4, 4, 8)).toBeCloseTo(17 / 70, 12);
    expect(fisherOneSided(3, 3, 3, 8)).toBeCloseTo(1 / 56, 12);
    // 12 of 12 affected nodes are the 12 on the new release among 52: 1 / C(52, 12).
    expect(fisherOneSided(12, 12, 12, 52)).toBeCloseTo(1 / 206379406870, 20);
    expect(fisherOneSided(0, 10, 5, 20)).toBeCloseTo(1, 12);
  });
});

describe('release attribution (awslabs/amazon-eks-ami#2729: v20260520, containerd 2.3)', () => {
  it('says so with the counts and the rule: 12 of 12 on 1.34.7-20260520, 0 of 40 on 1.34.7-20260512', () => {
    const nodes = cluster();
    const a = attributed(
      attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes, affected: affectedNew(nodes) }),
    );
    expect(a).toMatchObject({ attribute: 'ami-release', value: '1.34.7-20260520', previous: '1.34.7-20260512' });
    expect(a.line).toBe(
      "12 of 12 affected nodes run AMI release 1.34.7-20260520; 0 of 40 on 1.34.7-20260512 (p = 4.8e-12; rule: Fisher's exact test one-sided p < 0.01, at least 3 affected nodes and 80% of them on the value)",
    );
    // containerd changed with the AMI on the same nodes: they cannot be told apart, and it says so.
    expect(a.alongside).toEqual(['containerd 2.3.0']);
    expect(a.groups).toEqual([{ kind: 'managed', name: 'general' }]);
  });

  it('proposes the pin of the managed node group back to the previous release, the failing one recorded for the roll-forward', () => {
    const nodes = cluster();
    const a = attributed(
      attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes, affected: affectedNew(nodes) }),
    );
    expect(pinProposals(a, new Map([['general', fixture.nodegroup]]))).toEqual([
      {
        group: { kind: 'managed', name: 'general' },
        action: {
          kind: 'pin-nodegroup-release',
          nodegroup: 'general',
          to: { releaseVersion: '1.34.7-20260512' },
          from: { releaseVersion: '1.34.7-20260520' },
          kubernetesVersion: '1.34',
        },
        reason: expect.stringMatching(
          /^pin node group general to AMI release 1\.34\.7-20260512 \(from 1\.34\.7-20260520\): 12 of 12/,
        ),
      },
    ]);
    expect(releaseBlock(a, { value: '1.34.7-20260520' })).toMatch(
      /^release regression: 12 of 12 .*node-by-node repair stopped/,
    );
    expect(releaseBlock(a, { value: '1.34.7-20260512' })).toBeUndefined();
  });

  it('too few nodes: 3 of 3 on the new release and 0 of 5 on the old is p = 0.018: said so, nothing proposed', () => {
    const nodes = cluster({ old: 5, new: 3 });
    const a = attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes, affected: affectedNew(nodes) });
    expect(a.status).toBe('too-few');
    expect(a.line).toMatch(
      /^too few nodes to attribute: 3 of 3 affected nodes run AMI release 1\.34\.7-20260520; 0 of 5 on 1\.34\.7-20260512 \(p = 0\.018;/,
    );
    const two = cluster({ old: 40, new: 2 });
    expect(
      attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes: two, affected: affectedNew(two) })
        .status,
    ).toBe('too-few');
  });

  it('failures spread over both releases are not a regression of the new one', () => {
    const nodes = cluster();
    const affected = nodes
      .filter((_, i) => i % 4 === 0)
      .map((n) => ({ instanceId: n.instanceId, namespaces: ['kube-system'] }));
    const a = attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes, affected });
    expect(a.status).toBe('not-concentrated');
  });

  it("a tenant whose own pods fail on the new nodes never pins the node group: one namespace alone is not the group's cause", () => {
    const nodes = cluster();
    const a = attributeRelease({
      failureClass: 'sandbox-image',
      nodeLevel: true,
      nodes,
      affected: affectedNew(nodes, ['team-a']),
    });
    expect(a).toEqual({
      status: 'tenant',
      line: "every failing pod is in namespace team-a: one namespace's own workload is no node group's cause, nothing pinned",
    });
  });

  it('a pull class is not a node release: no attribution', () => {
    const nodes = cluster();
    expect(
      attributeRelease({ failureClass: 'image-not-found', nodeLevel: false, nodes, affected: affectedNew(nodes) })
        .status,
    ).toBe('not-node-level');
  });

  it('nodes the cluster does not list (a name from text) count for nothing', () => {
    const nodes = cluster();
    const forged = Array.from({ length: 30 }, (_, i) => ({
      instanceId: `i-0f${String(i).padStart(15, '0')}`,
      namespaces: ['kube-system'],
    }));
    expect(attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes, affected: forged }).status).toBe(
      'too-few',
    );
  });
});

describe('the pin per node group: supported, refused, recommended', () => {
  const nodes = cluster();
  const a = attributed(
    attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes, affected: affectedNew(nodes) }),
  );

  it('a node group mid-upgrade is not pinned while it changes', () => {
    const [p] = pinProposals(a, new Map([['general', { ...fixture.nodegroup, status: 'UPDATING' }]]));
    expect(p).toEqual({
      group: { kind: 'managed', name: 'general' },
      refused: 'node group general is UPDATING (mid-upgrade or not ready): no pin while it changes',
    });
  });

  it('a node group already pinned to the previous release is not pinned again', () => {
    const [p] = pinProposals(a, new Map([['general', { ...fixture.nodegroup, releaseVersion: '1.34.7-20260512' }]]));
    expect(p).toMatchObject({ refused: expect.stringMatching(/already pinned to 1\.34\.7-20260512/) });
  });

  it('a node group that could not be read proposes nothing', () => {
    expect(pinProposals(a, new Map())[0]).toMatchObject({ refused: expect.stringMatching(/could not be read/) });
  });

  it('Karpenter (#2712: "pinning to al2023@v20260423 resolves the issue"): the EC2NodeClass alias, recommendation only', () => {
    const k = cluster({ group: { autoScalingGroup: undefined, karpenterNodePool: 'default' } });
    const ka = attributed(
      attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes: k, affected: affectedNew(k) }),
    );
    expect(pinProposals(ka, new Map())).toEqual([
      {
        group: { kind: 'karpenter', name: 'default' },
        recommend:
          'pin the EC2NodeClass of NodePool default to the previous release: amiSelectorTerms: [{ alias: al2023@v20260512 }] (pod-doctor does not write Karpenter objects)',
      },
    ]);
  });

  it('a self-managed group: its launch template, recommendation only', () => {
    const s = cluster({ group: { autoScalingGroup: 'nodes-self-managed' } });
    const sa = attributed(
      attributeRelease({ failureClass: 'sandbox-image', nodeLevel: true, nodes: s, affected: affectedNew(s) }),
    );
    expect(pinProposals(sa, new Map())[0]).toMatchObject({
      group: { kind: 'self-managed', name: 'nodes-self-managed' },
      recommend: expect.stringMatching(
        /launch template back to the one before 1\.34\.7-20260520 \(pod-doctor holds no Auto Scaling write\)/,
      ),
    });
  });
});

describe('node release facts', () => {
  it('EKS-optimized AMI names and the kubelet version make the node group release version', () => {
    expect(amiReleaseVersion('amazon-eks-node-al2023-x86_64-standard-1.34-v20260520', 'v1.34.7-eks-4f4795d')).toBe(
      '1.34.7-20260520',
    );
    expect(amiReleaseVersion('amazon-eks-node-al2023-x86_64-nvidia-1.30-v20260505', undefined)).toBe('1.30-20260505');
    expect(amiReleaseVersion('amazon-eks-node-1.29-v20240202', 'v1.29.0-eks-5e0fdde')).toBe('1.29.0-20240202');
    expect(amiReleaseVersion('my-golden-ami-2026', 'v1.34.7')).toBeUndefined();
    expect(releaseTag('1.34.7-20260512')).toBe('v20260512');
  });

  it('a custom AMI is known by its image id', () => {
    const n = nodeRelease(
      {
        instanceId: 'i-0123456789abcdef0',
        imageId: 'ami-0abc',
        imageName: 'golden',
        launchTime: '2026-05-26T00:00:00Z',
      },
      MANAGED,
    );
    expect(n.attributes['ami-release']).toBe('ami-0abc');
    expect(n.group).toEqual({ kind: 'self-managed', name: '(no Auto Scaling group)' });
  });
});
