import { describe, expect, it } from 'vitest';
import { type CheckGroup, makeCheckHandler } from '../../lambdas/aws/checks/groups.js';
import { resolveNode } from '../../lambdas/aws/readers/account/node-context.js';
import { FINDING_IDS, type Finding } from '../../lambdas/core/contract/findings.js';
import {
  ACCOUNT,
  type AccountSnapshot,
  APP_IMAGE,
  APP_REPO,
  CLUSTER,
  detachEcrReadOnlyEvent,
  ENDPOINT_SG,
  fragmentSubnet,
  healthyAccount,
  NODE_DNS,
  NODE_ID,
  NODE_ROLE,
  REGION,
  SUBNET,
} from '../../local/account-snapshot.js';
import { type Faults, mockAccount } from '../../local/mock-account.js';

const NOW = new Date('2026-11-29T10:00:00Z');

async function run(
  group: CheckGroup,
  account: AccountSnapshot,
  opts: { image?: string; faults?: Faults; neededIps?: number } = {},
): Promise<Record<string, Finding>> {
  const clients = mockAccount(account, opts.faults);
  try {
    const node = await resolveNode(clients.ec2, clients.iam, NODE_DNS);
    const out = await makeCheckHandler(
      group,
      clients,
      () => NOW,
    )({ node, cluster: CLUSTER, region: REGION, image: opts.image ?? APP_IMAGE, neededIps: opts.neededIps ?? 16 });
    return Object.fromEntries(out.findings.map((f) => [f.id, f]));
  } finally {
    clients.restore();
  }
}

function mutate(f: (a: AccountSnapshot) => void): AccountSnapshot {
  const a = healthyAccount(NOW);
  f(a);
  return a;
}

describe('node resolution', () => {
  it('resolves a node name to its instance, cluster, node group, role, subnet and security groups', async () => {
    const clients = mockAccount(healthyAccount(NOW));
    const node = await resolveNode(clients.ec2, clients.iam, NODE_DNS);
    clients.restore();
    expect(node).toMatchObject({
      instanceId: NODE_ID,
      clusterName: CLUSTER,
      nodegroupName: 'ng-1',
      roleName: NODE_ROLE,
      roleArn: `arn:aws:iam::${ACCOUNT}:role/${NODE_ROLE}`,
      subnetId: SUBNET,
      securityGroupIds: ['sg-0123456789abcdef0'],
      instanceType: 'm6i.large',
    });
  });

  it('says so when no instance matches', async () => {
    const clients = mockAccount(healthyAccount(NOW));
    await expect(resolveNode(clients.ec2, clients.iam, 'ip-10-9-9-9.eu-west-1.compute.internal')).rejects.toThrow(
      'no EC2 instance for node',
    );
    clients.restore();
  });
});

describe('a healthy account passes every check', () => {
  it.each([['iam'], ['ecr'], ['network'], ['eks'], ['changes']] as const)('%s', async (group) => {
    const f = await run(group, healthyAccount(NOW));
    const notPass = Object.values(f).filter((x) => x.status !== 'pass');
    expect(notPass.map((x) => `${x.id}: ${x.status} ${x.summary}`)).toEqual([]);
    expect(Object.keys(f).length).toBeGreaterThan(0);
  });
});

describe('each check fails on its broken fixture', () => {
  it('iam.node-role.ecr-read: ECR read policy detached', async () => {
    const f = await run(
      'iam',
      mutate(
        (a) =>
          (a.roles[NODE_ROLE].attached = a.roles[NODE_ROLE].attached.filter((p) => !p.includes('ContainerRegistry'))),
      ),
    );
    expect(f['iam.node-role.ecr-read']).toMatchObject({
      status: 'fail',
      remediation: expect.stringContaining('AmazonEC2ContainerRegistryPullOnly'),
    });
    expect(f['iam.node-role.ecr-read'].summary).toContain('ecr:GetAuthorizationToken');
  });

  it('iam.node-role.ecr-read: an inline explicit Deny wins over the managed Allow', async () => {
    const f = await run(
      'iam',
      mutate(
        (a) =>
          (a.roles[NODE_ROLE].inline.guard = {
            Statement: [{ Sid: 'NoEcr', Effect: 'Deny', Action: 'ecr:BatchGetImage', Resource: '*' }],
          }),
      ),
    );
    expect(f['iam.node-role.ecr-read']).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('explicit Deny'),
    });
  });

  it('iam.cni-policy: the managed add-on points aws-node at a role without AmazonEKS_CNI_Policy', async () => {
    const f = await run(
      'iam',
      mutate((a) => {
        a.addons[0].serviceAccountRoleArn = `arn:aws:iam::${ACCOUNT}:role/AmazonEKSVPCCNIRole`;
        a.roles.AmazonEKSVPCCNIRole = { attached: [], inline: {} };
      }),
    );
    expect(f['iam.cni-policy']).toMatchObject({
      status: 'fail',
      evidence: expect.objectContaining({ role: 'AmazonEKSVPCCNIRole', via: expect.stringContaining('IRSA') }),
    });
  });

  it('iam.cni-policy: follows a Pod Identity association to its role', async () => {
    const f = await run(
      'iam',
      mutate((a) => {
        a.podIdentityAssociations = [
          {
            clusterName: CLUSTER,
            namespace: 'kube-system',
            serviceAccount: 'aws-node',
            associationId: 'a-0abc123def4567890',
            associationArn: `arn:aws:eks:${REGION}:${ACCOUNT}:podidentityassociation/${CLUSTER}/a-0abc123def4567890`,
            roleArn: `arn:aws:iam::${ACCOUNT}:role/CniPodIdentity`,
          },
        ];
        a.roles.CniPodIdentity = { attached: ['arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy'], inline: {} };
      }),
    );
    expect(f['iam.cni-policy']).toMatchObject({
      status: 'pass',
      evidence: expect.objectContaining({ role: 'CniPodIdentity' }),
    });
  });

  it('ecr.repository-policy: the repository policy denies the node role', async () => {
    const f = await run(
      'ecr',
      mutate((a) => {
        a.repositories[APP_REPO].policyText = JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Sid: 'DenyNodes',
              Effect: 'Deny',
              Principal: { AWS: `arn:aws:iam::${ACCOUNT}:role/${NODE_ROLE}` },
              Action: 'ecr:*',
            },
          ],
        });
      }),
    );
    expect(f['ecr.repository-policy']).toMatchObject({ status: 'fail', summary: expect.stringContaining('denies') });
  });

  /** payments/api in a second account, with a repository policy (or none). */
  const foreignRepo = (policy?: object) =>
    mutate((a) => {
      const own = a.repositories[APP_REPO];
      a.repositories[`${SHARED}/${APP_REPO}`] = {
        repository: {
          ...own.repository,
          registryId: SHARED,
          repositoryArn: `arn:aws:ecr:${REGION}:${SHARED}:repository/${APP_REPO}`,
        },
        policyText: policy ? JSON.stringify(policy) : undefined,
        images: own.images.map((i) => ({ ...i, registryId: SHARED })),
      };
    });
  const SHARED = '444455556666';
  const sharedImage = `${SHARED}.dkr.ecr.${REGION}.amazonaws.com/${APP_REPO}:v2.3.1`;

  it('ecr: a cross-account repository that does not grant pod-doctor is reported as such, with the statement to add', async () => {
    const f = await run('ecr', foreignRepo(), { image: sharedImage });
    for (const id of ['ecr.repository-policy', 'ecr.image-exists']) {
      expect(f[id]).toMatchObject({
        status: 'warn',
        summary: expect.stringContaining(`in account ${SHARED} does not grant pod-doctor's role`),
        evidence: expect.objectContaining({
          kind: 'cross-account-not-granted',
          repositoryAccount: SHARED,
          podDoctorRole: `arn:aws:iam::${ACCOUNT}:role/PodDoctorCheck`,
        }),
      });
      expect(f[id].remediation).toContain('"Principal":{"AWS":"arn:aws:iam::111122223333:role/PodDoctorCheck"}');
      expect(f[id].remediation).toContain('"Action":["ecr:DescribeImages","ecr:GetRepositoryPolicy"]');
    }
  });

  it('ecr.repository-policy: a cross-account repository that grants pod-doctor but not the node role fails', async () => {
    const f = await run(
      'ecr',
      foreignRepo({
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'PodDoctorChecks',
            Effect: 'Allow',
            Principal: { AWS: `arn:aws:iam::${ACCOUNT}:role/PodDoctorCheck` },
            Action: ['ecr:DescribeImages', 'ecr:GetRepositoryPolicy'],
          },
        ],
      }),
      { image: sharedImage },
    );
    expect(f['ecr.repository-policy']).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('does not grant'),
      evidence: expect.objectContaining({ crossAccount: true }),
    });
    expect(f['ecr.image-exists'].status).toBe('pass');
  });

  it('ecr.image-exists: a tag typo fails with the closest existing tags', async () => {
    const f = await run('ecr', healthyAccount(NOW), { image: APP_IMAGE.replace('v2.3.1', 'v2.3.11') });
    expect(f['ecr.image-exists']).toMatchObject({
      status: 'fail',
      evidence: expect.objectContaining({ closestTags: ['v2.3.1', 'v2.3.0', 'v2.2.9'] }),
    });
  });

  it('ecr.image-exists: a repository typo suggests the existing repository', async () => {
    const f = await run('ecr', healthyAccount(NOW), { image: APP_IMAGE.replace('payments/api', 'payment/api') });
    expect(f['ecr.image-exists']).toMatchObject({
      status: 'fail',
      evidence: expect.objectContaining({ closestRepositories: [APP_REPO] }),
    });
  });

  it('ecr.image-exists: a recent BatchDeleteImage is named', async () => {
    const f = await run(
      'ecr',
      mutate((a) => {
        a.repositories[APP_REPO].images = a.repositories[APP_REPO].images.filter(
          (i) => !i.imageTags?.includes('v2.3.1'),
        );
        a.cloudTrailEvents.push({
          EventId: 'e1',
          EventName: 'BatchDeleteImage',
          EventTime: new Date('2026-11-29T06:00:00Z'),
          Username: 'ecr-lifecycle',
          EventSource: 'ecr.amazonaws.com',
          CloudTrailEvent: JSON.stringify({
            eventName: 'BatchDeleteImage',
            requestParameters: { repositoryName: APP_REPO, imageIds: [{ imageTag: 'v2.3.1' }] },
          }),
        });
      }),
    );
    expect(f['ecr.image-exists']).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('deleted recently by ecr-lifecycle'),
    });
  });

  it('vpc.endpoint.ecr-api: private DNS disabled; vpc.endpoint.ecr-dkr: missing without NAT', async () => {
    const f = await run(
      'network',
      mutate((a) => {
        a.vpcEndpoints[0].PrivateDnsEnabled = false;
        a.vpcEndpoints = a.vpcEndpoints.filter((v) => !v.ServiceName?.endsWith('ecr.dkr'));
      }),
    );
    expect(f['vpc.endpoint.ecr-api']).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('private DNS disabled'),
    });
    expect(f['vpc.endpoint.ecr-dkr']).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('no route to the internet'),
    });
  });

  it('vpc.endpoint.ecr-dkr passes without an endpoint when a NAT gateway routes to ECR', async () => {
    const f = await run(
      'network',
      mutate((a) => {
        a.vpcEndpoints = a.vpcEndpoints.filter((v) => !v.ServiceName?.endsWith('ecr.dkr'));
        a.routeTables[0].Routes?.push({
          DestinationCidrBlock: '0.0.0.0/0',
          NatGatewayId: 'nat-0a1b2c3d4e5f60718',
          State: 'active',
        });
      }),
    );
    expect(f['vpc.endpoint.ecr-dkr']).toMatchObject({
      status: 'pass',
      summary: expect.stringContaining('nat-0a1b2c3d4e5f60718'),
    });
  });

  it('vpc.endpoint.sg-443: the endpoint security group lost its 443 rule from the nodes', async () => {
    const f = await run(
      'network',
      mutate((a) => {
        for (const g of a.securityGroups) if (g.GroupId === ENDPOINT_SG) g.IpPermissions = [];
      }),
    );
    expect(f['vpc.endpoint.sg-443']).toMatchObject({ status: 'fail', remediation: expect.stringContaining('TCP 443') });
  });

  it('vpc.endpoint.s3-gateway: no S3 gateway endpoint and no internet route', async () => {
    const f = await run(
      'network',
      mutate((a) => (a.vpcEndpoints = a.vpcEndpoints.filter((v) => v.VpcEndpointType !== 'Gateway'))),
    );
    expect(f['vpc.endpoint.s3-gateway']).toMatchObject({ status: 'fail' });
  });

  it('subnet.free-ips: too few addresses left', async () => {
    const f = await run(
      'network',
      mutate((a) => (a.subnets[0].AvailableIpAddressCount = 3)),
    );
    expect(f['subnet.free-ips']).toMatchObject({ status: 'fail' });
  });

  it('subnet.free-prefix-blocks fails while subnet.free-ips passes on a fragmented subnet', async () => {
    const f = await run(
      'network',
      mutate((a) => fragmentSubnet(a, 225)),
    );
    expect(f['subnet.free-ips'].status).toBe('pass');
    expect(f['subnet.free-prefix-blocks']).toMatchObject({
      status: 'fail',
      evidence: expect.objectContaining({ freeBlocks: 0 }),
    });
    // No free aligned /28 at all: a reservation has nothing to reserve, so it is not the advice.
    const advice = String(f['subnet.free-prefix-blocks'].remediation);
    expect(advice).not.toMatch(/reservation of type prefix|create-subnet-cidr-reservation/);
    expect(advice).toMatch(/a prefix reservation cannot help/);
    expect(advice).toMatch(/add a subnet \(or a secondary VPC CIDR/);
    expect(advice).toMatch(/secondary IPs \(ENABLE_PREFIX_DELEGATION=false\)/);
  });

  it('subnet.free-prefix-blocks warns with one free /28 left and advises reserving it for prefixes', async () => {
    const f = await run(
      'network',
      mutate((a) => fragmentSubnet(a, 212, 1)),
    );
    expect(f['subnet.free-prefix-blocks']).toMatchObject({
      status: 'warn',
      evidence: expect.objectContaining({ freeBlocks: 1 }),
    });
    expect(String(f['subnet.free-prefix-blocks'].remediation)).toMatch(
      /create-subnet-cidr-reservation .*--reservation-type prefix/,
    );
  });

  it('node.eni-capacity: every ENI and address of the instance type is in use', async () => {
    const f = await run(
      'eks',
      mutate((a) => {
        a.networkInterfaces = [0, 1, 2].map((d) => ({
          NetworkInterfaceId: `eni-0${d}23456789abcdef0`,
          SubnetId: SUBNET,
          Attachment: { InstanceId: NODE_ID, DeviceIndex: d, Status: 'attached' },
          PrivateIpAddresses: Array.from({ length: 10 }, (_, i) => ({
            PrivateIpAddress: `10.0.12.${d * 10 + i + 10}`,
            Primary: i === 0,
          })),
          Ipv4Prefixes: [],
        }));
      }),
    );
    expect(f['node.eni-capacity']).toMatchObject({
      status: 'fail',
      remediation: expect.stringContaining('prefix delegation'),
    });
  });

  it('eks.addon-versions: a degraded add-on fails, an old one warns', async () => {
    const degraded = await run(
      'eks',
      mutate((a) => (a.addons[0].status = 'DEGRADED')),
    );
    expect(degraded['eks.addon-versions']).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('vpc-cni DEGRADED'),
    });
    const old = await run(
      'eks',
      mutate((a) => (a.addons[2].addonVersion = 'v1.11.1-eksbuild.4')),
    );
    expect(old['eks.addon-versions']).toMatchObject({
      status: 'warn',
      summary: expect.stringContaining('coredns v1.11.1-eksbuild.4 < v1.11.4-eksbuild.14'),
    });
  });

  it('eks.node-ami: an old release warns', async () => {
    const f = await run(
      'eks',
      mutate((a) => (a.nodegroups[0].releaseVersion = '1.33.0-20250301')),
    );
    expect(f['eks.node-ami']).toMatchObject({ status: 'warn', evidence: expect.objectContaining({ ageDays: 638 }) });
  });

  it('change.recent: names who detached the ECR policy from the node role', async () => {
    const f = await run(
      'changes',
      mutate((a) => a.cloudTrailEvents.push(detachEcrReadOnlyEvent())),
    );
    expect(f['change.recent']).toMatchObject({
      status: 'warn',
      summary: expect.stringMatching(/^likely caused by: DetachRolePolicy on .* by jane\.doe@example\.com/),
    });
  });
});

describe('a check that cannot run is an error, never a pass', () => {
  it('throttling after retries ends in error findings for the whole group', async () => {
    const f = await run('network', healthyAccount(NOW), { faults: { throttle: ['DescribeSubnetsCommand'] } });
    expect(f['subnet.free-ips']).toMatchObject({
      status: 'error',
      evidence: expect.objectContaining({ kind: 'throttled' }),
    });
    expect(f['subnet.free-prefix-blocks'].status).toBe('error');
    expect(f['vpc.endpoint.ecr-api'].status).toBe('pass');
  });

  it('access denied ends in an error finding naming the permission', async () => {
    const f = await run('iam', healthyAccount(NOW), { faults: { deny: ['ListAttachedRolePoliciesCommand'] } });
    expect(f['iam.node-role.ecr-read']).toMatchObject({
      status: 'error',
      evidence: expect.objectContaining({ kind: 'access-denied' }),
      remediation: expect.stringContaining('read-only permission'),
    });
  });

  it('rejects input without a node with a named error', async () => {
    await expect(makeCheckHandler('iam', mockAccount(healthyAccount(NOW)))({ cluster: CLUSTER })).rejects.toMatchObject(
      { name: 'CheckInputError' },
    );
  });
});

describe('coverage of the finding ids', () => {
  it('the five groups together report every finding id', async () => {
    const ids = new Set<string>();
    for (const g of ['iam', 'ecr', 'network', 'eks', 'changes'] as const)
      for (const id of Object.keys(await run(g, healthyAccount(NOW)))) ids.add(id);
    expect([...ids].sort()).toEqual([...FINDING_IDS].sort());
  });
});
