import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/app.js';
import { clusterVpcContextKey } from '../../lib/cluster-vpc-context.js';
import { CONFIG_CONTEXT_KEY } from '../../lib/config.js';
import { configDocumentOf } from '../../local/config-store.js';
import { TemplateAuthorizer } from '../../local/iam.js';
import { definitionOf } from '../../local/local-workflow.js';
import { collectStates, StackRoles } from '../../local/stack-roles.js';
import { arnOf, idsOfType, type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { MIXED_CLUSTERS, VPC_A, VPC_B } from '../support/private-clusters.js';

const KUBERNETES_HANDLERS = ['door', 'kubernetes', 'kubernetes-events', 'kubernetes-sweep'];

function functions(t: ResolvedTemplate) {
  return idsOfType(t, 'AWS::Lambda::Function').map((id) => {
    const r = t.Resources[id];
    const v = r.Properties?.VpcConfig as { SubnetIds: string[]; SecurityGroupIds: string[] } | undefined;
    const env = (r.Properties?.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {};
    return {
      id,
      arn: arnOf(t, id),
      handler: String(r.Metadata?.PodDoctorHandler),
      vpc: v,
      env,
      role: String(r.Properties?.Role),
    };
  });
}

function accessEntries(t: ResolvedTemplate) {
  return idsOfType(t, 'AWS::EKS::AccessEntry').map((id) => ({
    cluster: String(t.Resources[id].Properties?.ClusterName),
    role: String(t.Resources[id].Properties?.PrincipalArn),
  }));
}

describe('functions in the cluster VPC: public, CIDR-restricted and private clusters in one stack', () => {
  const t = synthesizedTemplate(MIXED_CLUSTERS);
  const fns = functions(t);
  const groups = idsOfType(t, 'AWS::EC2::SecurityGroup').map(
    (id) => ({ id, ...t.Resources[id].Properties }) as Record<string, unknown>,
  );
  function groupIdOf(vpcId: string): string {
    const f = fns.find((x) => x.vpc?.SubnetIds[0].startsWith(vpcId === VPC_A ? 'subnet-0a' : 'subnet-0b'));
    return f?.vpc?.SecurityGroupIds[0] ?? '';
  }

  it('runs one copy of the door, the Kubernetes function, the events reader and the sweep per VPC (not per cluster), and no other function in a VPC', () => {
    const placed = fns.filter((f) => f.vpc);
    expect(placed.map((f) => f.handler).sort()).toEqual([...KUBERNETES_HANDLERS, ...KUBERNETES_HANDLERS].sort());
    const a = placed.filter((f) => f.vpc?.SubnetIds.includes('subnet-0aaaaaaaaaaaaaa01'));
    expect(a).toHaveLength(4);
    for (const f of a)
      expect(f.vpc?.SubnetIds).toEqual([
        'subnet-0aaaaaaaaaaaaaa01',
        'subnet-0aaaaaaaaaaaaaa02',
        'subnet-0aaaaaaaaaaaaaa03',
      ]);
    // The public cluster keeps its functions outside any VPC, unchanged.
    expect(
      fns
        .filter((f) => !f.vpc && KUBERNETES_HANDLERS.includes(f.handler))
        .map((f) => f.handler)
        .sort(),
    ).toEqual([...KUBERNETES_HANDLERS].sort());
  });

  it('scopes each copy to its clusters: access entries, CLUSTER_REACH of the scheduled readers, the configuration document', () => {
    const entries = accessEntries(t);
    const clustersOf = (pred: (f: (typeof fns)[number]) => boolean) =>
      [...new Set(entries.filter((e) => fns.some((f) => pred(f) && f.role === e.role)).map((e) => e.cluster))].sort();
    expect(clustersOf((f) => !f.vpc)).toEqual(['public-eu']);
    expect(clustersOf((f) => f.vpc?.SubnetIds[0] === 'subnet-0aaaaaaaaaaaaaa01')).toEqual(['cidr-eu', 'private-eu']);
    expect(clustersOf((f) => f.vpc?.SubnetIds[0] === 'subnet-0bbbbbbbbbbbbbb01')).toEqual(['private-b']);
    const scheduled = fns.filter((f) => ['kubernetes-events', 'kubernetes-sweep'].includes(f.handler));
    expect(scheduled.map((f) => f.env.CLUSTER_REACH ?? 'outside').sort()).toEqual(
      ['outside', 'outside', VPC_A, VPC_A, VPC_B, VPC_B].sort(),
    );
    const doc = configDocumentOf(t);
    expect(doc.clusters.map((c) => [c.name, c.reach ?? 'outside'])).toEqual([
      ['public-eu', 'outside'],
      ['cidr-eu', VPC_A],
      ['private-eu', VPC_A],
      ['private-b', VPC_B],
    ]);
  });

  it('gives each VPC a security group of its own (443 out, nothing in) and a 443 rule from it on each cluster security group', () => {
    expect(groups.map((g) => g.VpcId).sort()).toEqual([VPC_A, VPC_B]);
    for (const g of groups) {
      expect(g.SecurityGroupIngress).toBeUndefined();
      expect(g.SecurityGroupEgress).toEqual([
        expect.objectContaining({ IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
      ]);
    }
    const rules = idsOfType(t, 'AWS::EC2::SecurityGroupIngress').map((id) => t.Resources[id].Properties ?? {});
    expect(rules.map((r) => [r.GroupId, r.SourceSecurityGroupId, r.IpProtocol, r.FromPort, r.ToPort]).sort()).toEqual(
      [
        ['sg-0aaaaaaaaaaaaaa01', groupIdOf(VPC_A), 'tcp', 443, 443],
        ['sg-0aaaaaaaaaaaaaa02', groupIdOf(VPC_A), 'tcp', 443, 443],
        ['sg-0bbbbbbbbbbbbbb01', groupIdOf(VPC_B), 'tcp', 443, 443],
      ].sort(),
    );
    expect(groupIdOf(VPC_A)).toMatch(/^sg-/);
  });

  it('lets Lambda manage the network interfaces in the VPC subnets and group only (as IAM decides it)', async () => {
    const authz = new TemplateAuthorizer(t);
    const placed = fns.find((f) => f.handler === 'kubernetes-events' && f.env.CLUSTER_REACH === VPC_B);
    const outside = fns.find((f) => f.handler === 'kubernetes-events' && !f.env.CLUSTER_REACH);
    const ec2 = (r: string) => `arn:aws:ec2:eu-west-1:111122223333:${r}`;
    const create = (role: string, subnet: string) =>
      authz.deniedBecause(role, { action: 'ec2:CreateNetworkInterface', resource: ec2(`subnet/${subnet}`) });
    expect(await create(String(placed?.role), 'subnet-0bbbbbbbbbbbbbb01')).toBeUndefined();
    expect(await create(String(placed?.role), 'subnet-0aaaaaaaaaaaaaa01')).toBeDefined();
    expect(await create(String(outside?.role), 'subnet-0bbbbbbbbbbbbbb01')).toBeDefined();
  });

  it('routes each incident by its cluster to the copy of its VPC: the door and every Kubernetes Task, invocable by the state machine', async () => {
    const def = definitionOf(t);
    const states = new Map(collectStates(def));
    const choice = states.get('Door: which VPC?') as { Choices: unknown[]; Default: string };
    expect(choice.Default).toBe('Door');
    expect(JSON.stringify(choice.Choices)).toContain('"cidr-eu"');
    expect(JSON.stringify(choice.Choices)).toContain('"private-b"');
    const roles = new StackRoles(t, def);
    const authz = new TemplateAuthorizer(t);
    for (const base of ['Door', 'Inspect cluster', 'Watch pods start', 'Watch recreated pods']) {
      expect(roles.withCopies(base).sort()).toEqual([base, `${base} in ${VPC_A}`, `${base} in ${VPC_B}`].sort());
      for (const s of roles.withCopies(base)) {
        const fn = roles.functionOfState(s);
        const placedIn = fns.find((f) => f.arn === fn)?.vpc?.SubnetIds[0] ?? 'outside';
        expect([s, placedIn.slice(0, 9)]).toEqual([
          s,
          s.endsWith(VPC_A) ? 'subnet-0a' : s.endsWith(VPC_B) ? 'subnet-0b' : 'outside',
        ]);
        expect(
          await authz.deniedBecause(roles.stateMachineRole(), { action: 'lambda:InvokeFunction', resource: fn }),
        ).toBeUndefined();
      }
    }
  });

  it('without any cluster in a VPC the template has no route, security group or placement', () => {
    const plain = synthesizedTemplate({ clusters: [{ name: 'public-eu' }] });
    expect(idsOfType(plain, 'AWS::EC2::SecurityGroup')).toEqual([]);
    expect(functions(plain).filter((f) => f.vpc)).toEqual([]);
    expect(
      collectStates(definitionOf(plain))
        .map(([n]) => n)
        .filter((n) => /VPC|in vpc-/.test(n)),
    ).toEqual([]);
  });
});

describe('the cluster VPC from the CDK context (pod-doctor:cluster-vpc:<region>:<name>)', () => {
  const synthWith = (recorded: Record<string, unknown>) => {
    const { app, stack } = createApp({
      context: {
        [CONFIG_CONTEXT_KEY]: { clusters: [{ name: 'ctx-eu', region: 'eu-west-1' }] },
        [clusterVpcContextKey('eu-west-1', 'ctx-eu')]: recorded,
        'aws:cdk:bundling-stacks': [],
      },
    });
    const raw = app.synth().getStackByName(stack.stackName).template as {
      Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    };
    return Object.values(raw.Resources).filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.VpcConfig)
      .length;
  };
  const base = {
    vpcId: VPC_A,
    subnetIds: ['subnet-0aaaaaaaaaaaaaa01'],
    clusterSecurityGroupId: 'sg-0aaaaaaaaaaaaaa01',
  };

  it('places the functions of a private-only cluster (as DescribeCluster recorded it)', () => {
    expect(synthWith({ ...base, endpointPublicAccess: false, endpointPrivateAccess: true })).toBe(4);
  });

  it('places them for a public endpoint limited to CIDRs with the private endpoint on', () => {
    expect(
      synthWith({
        ...base,
        endpointPublicAccess: true,
        endpointPrivateAccess: true,
        publicAccessCidrs: ['203.0.113.0/24'],
      }),
    ).toBe(4);
  });

  it('keeps a public endpoint open to all outside any VPC', () => {
    expect(
      synthWith({ ...base, endpointPublicAccess: true, endpointPrivateAccess: true, publicAccessCidrs: ['0.0.0.0/0'] }),
    ).toBe(0);
  });
});
