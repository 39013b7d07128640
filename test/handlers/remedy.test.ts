import { describe, expect, it } from 'vitest';
import { makeCheckHandler } from '../../lambdas/aws/checks/groups.js';
import {
  assertClusterOwned,
  assertInScope,
  pathFor,
  type RemedyClients,
  RemedyTargetError,
} from '../../lambdas/aws/door/account-remedies.js';
import type { NodeContext } from '../../lambdas/aws/readers/account/node-context.js';
import { resolveNode } from '../../lambdas/aws/readers/account/node-context.js';
import { DEFAULT_CLASS_MODES } from '../../lambdas/core/contract/failure-classes.js';
import { accountTargetSchema } from '../../lambdas/core/door/action-request.js';
import { runApplyPath } from '../../lambdas/core/remedy/apply-path.js';
import { remedyTarget } from '../../lambdas/core/remedy/targets.js';
import type { WorkflowConfig } from '../../lambdas/core/workflow/workflow-config.js';
import {
  ACCOUNT,
  type AccountSnapshot,
  CLUSTER,
  detachEcrReadOnlyEvent,
  ENDPOINT_SG,
  fragmentSubnet,
  healthyAccount,
  NODE_DNS,
  NODE_ROLE,
  NODE_SG,
  REGION,
  SUBNET,
} from '../../local/account-snapshot.js';
import { type Faults, mockAccount } from '../../local/mock-account.js';

const NOW = new Date('2026-11-29T10:00:00Z');
const READ_ONLY = 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly';
const CNI = 'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy';
const CNI_ROLE = 'AmazonEKSVPCCNIRole';

const config = (scope: Partial<WorkflowConfig['clusters'][number]['remediation']> = {}): WorkflowConfig => ({
  clusters: [
    {
      name: CLUSTER,
      region: REGION,
      logGroups: [],
      remediation: { roles: [NODE_ROLE, CNI_ROLE], endpointSecurityGroups: [ENDPOINT_SG], subnets: [SUBNET], ...scope },
      nodeRoleArns: [],
    },
  ],
  remedies: {},
  modes: { ...DEFAULT_CLASS_MODES },
  limits: {
    maxNodeActionsPerClusterPerHour: 5,
    maxNodeGroupShareAffected: 0.3,
    incidentWindowMinutes: 30,
    nodeCooldownMinutes: 60,
  },
  killSwitchParameterName: '/pod-doctor/kill-switch',
  documents: { probeNode: 'p', repairPauseImage: 'r', collectLogs: 'c', restartRuntime: 'x' },
  historyRetentionDays: 365,
  evidenceBucket: 'b',
  tableName: 't',
});

/**
 * An account remedy as the door runs it: the target within the cluster's scope and the cluster's own,
 * then its apply path (prepare: the dry run; apply: change, verify, roll back).
 */
async function runRemedy(
  i: {
    phase: 'prepare' | 'apply';
    incidentId: string;
    cluster: string;
    region: string;
    node: NodeContext;
    target: unknown;
  },
  d: { clients: RemedyClients; config: WorkflowConfig; now: () => number },
) {
  const target = accountTargetSchema.parse(i.target);
  assertInScope(target, d.config, i.cluster);
  await assertClusterOwned(target, { cluster: i.cluster, node: i.node, config: d.config }, d.clients);
  const path = pathFor(target, { cluster: i.cluster, region: i.region, node: i.node }, d.clients);
  return runApplyPath(path, { dryRun: i.phase === 'prepare', now: d.now });
}

function account(f: (a: AccountSnapshot) => void): AccountSnapshot {
  const a = healthyAccount(NOW);
  f(a);
  return a;
}
const detached = (a: AccountSnapshot) => {
  a.roles[NODE_ROLE].attached = a.roles[NODE_ROLE].attached.filter((p) => p !== READ_ONLY);
  a.cloudTrailEvents.push(detachEcrReadOnlyEvent());
};
const cniMissing = (a: AccountSnapshot) => {
  a.addons[0].serviceAccountRoleArn = `arn:aws:iam::${ACCOUNT}:role/${CNI_ROLE}`;
  a.roles[CNI_ROLE] = { attached: [], inline: {} };
};
const sgRevoked = (a: AccountSnapshot) => {
  for (const g of a.securityGroups) if (g.GroupId === ENDPOINT_SG) g.IpPermissions = [];
};

/** Diagnoses the account as the workflow does, derives the target, then prepares or applies it. */
async function remedy(
  a: AccountSnapshot,
  cls: 'sandbox-image' | 'cni-permissions' | 'registry-unreachable' | 'cidr-fragmentation',
  phase: 'prepare' | 'apply',
  o: { faults?: Faults; cfg?: WorkflowConfig; afterDecide?: () => void } = {},
) {
  const clients = mockAccount(a, o.faults);
  try {
    const node = await resolveNode(clients.ec2, clients.iam, NODE_DNS);
    const findings = [];
    for (const g of ['iam', 'network', 'changes'] as const)
      findings.push(
        ...(await makeCheckHandler(g, clients, () => NOW)({ node, cluster: CLUSTER, region: REGION })).findings,
      );
    const cfg = o.cfg ?? config();
    const scope = cfg.clusters[0].remediation;
    const t = remedyTarget({
      class: cls,
      findings,
      node,
      scope,
      incidentId: 'inc-1',
      cluster: CLUSTER,
      clusterSecurityGroupId: NODE_SG,
    });
    if (!t.target) throw new Error(`no target: ${t.reason}`);
    o.afterDecide?.();
    const record = await runRemedy(
      { phase, incidentId: 'inc-1', cluster: CLUSTER, region: REGION, node, target: t.target },
      { clients, config: cfg, now: () => NOW.getTime() },
    );
    return { record, target: t.target };
  } finally {
    clients.restore();
  }
}

describe('attach-managed-policy', () => {
  it('reverts the attributed DetachRolePolicy: re-attaches the exact policy, verified by the re-check and IAM', async () => {
    const a = account(detached);
    const { record, target } = await remedy(a, 'sandbox-image', 'apply');
    expect(target).toMatchObject({ policyArn: READ_ONLY, reverts: { eventId: detachEcrReadOnlyEvent().EventId } });
    expect(record.status).toBe('verified');
    expect(record.diff).toContain(`+ role ${NODE_ROLE} policy ${READ_ONLY}`);
    expect(record.diff).toContain('- check iam.node-role.ecr-read: fail');
    expect(record.after).toContain('check iam.node-role.ecr-read: pass');
    expect(a.roles[NODE_ROLE].attached).toContain(READ_ONLY);
  });

  it('dry run: the diff, and the account unchanged', async () => {
    const a = account(detached);
    const { record } = await remedy(a, 'sandbox-image', 'prepare');
    expect(record.status).toBe('dry-run');
    expect(record.diff).toContain(`+ role ${NODE_ROLE} policy ${READ_ONLY}`);
    expect(a.roles[NODE_ROLE].attached).not.toContain(READ_ONLY);
  });

  it('without an attributed change attaches the smallest policy (PullOnly)', async () => {
    const a = account((x) => {
      x.roles[NODE_ROLE].attached = x.roles[NODE_ROLE].attached.filter((p) => p !== READ_ONLY);
      x.managedPolicies['arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly'] = x.managedPolicies[READ_ONLY];
    });
    const { record } = await remedy(a, 'sandbox-image', 'apply');
    expect(record.status).toBe('verified');
    expect(a.roles[NODE_ROLE].attached).toContain('arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly');
  });

  it('rolls back when IAM still denies after the attach (a permissions boundary the diagnosis cannot see)', async () => {
    const a = account((x) => {
      detached(x);
      x.managedPolicies['arn:aws:iam::111122223333:policy/NodeBoundary'] = {
        Statement: [{ Effect: 'Allow', Action: ['ec2:Describe*', 'eks:DescribeCluster'], Resource: '*' }],
      };
      x.roles[NODE_ROLE].permissionsBoundary = 'arn:aws:iam::111122223333:policy/NodeBoundary';
    });
    const before = [...a.roles[NODE_ROLE].attached];
    const { record } = await remedy(a, 'sandbox-image', 'apply');
    expect(record.status).toBe('rolled-back');
    expect(record.verification?.reason).toMatch(/IAM still denies ecr:GetAuthorizationToken \(implicitDeny\)/);
    expect(a.roles[NODE_ROLE].attached).toEqual(before);
    expect(record.after).toEqual(record.before);
  });

  it('attaches AmazonEKS_CNI_Policy to the role aws-node really uses (IRSA), not the node role', async () => {
    const a = account(cniMissing);
    const { record, target } = await remedy(a, 'cni-permissions', 'apply');
    expect(target).toMatchObject({ roleName: CNI_ROLE, policyArn: CNI });
    expect(record.status).toBe('verified');
    expect(a.roles[CNI_ROLE].attached).toEqual([CNI]);
  });

  it('refuses a role outside the configured scope before reading anything', async () => {
    const a = account(cniMissing);
    const cfg = config({ roles: [NODE_ROLE] });
    await expect(remedy(a, 'cni-permissions', 'apply', { cfg })).rejects.toThrow(
      /no target: role AmazonEKSVPCCNIRole is not listed/,
    );
    const clients = mockAccount(a);
    const node = await resolveNode(clients.ec2, clients.iam, NODE_DNS);
    const target = {
      kind: 'attach-managed-policy',
      roleName: CNI_ROLE,
      roleArn: `arn:aws:iam::${ACCOUNT}:role/${CNI_ROLE}`,
      policyArn: CNI,
      findingId: 'iam.cni-policy',
      actions: ['ec2:CreateNetworkInterface'],
    };
    await expect(
      runRemedy(
        { phase: 'apply', incidentId: 'i', cluster: CLUSTER, region: REGION, node, target },
        { clients, config: cfg, now: () => 0 },
      ),
    ).rejects.toBeInstanceOf(RemedyTargetError);
    clients.restore();
    expect(a.roles[CNI_ROLE].attached).toEqual([]);
  });

  it('is not needed when the policy is back already (re-check before the change)', async () => {
    const a = account(detached);
    const clients = mockAccount(a);
    const node = await resolveNode(clients.ec2, clients.iam, NODE_DNS);
    clients.restore();
    const target = {
      kind: 'attach-managed-policy',
      roleName: NODE_ROLE,
      roleArn: node.roleArn,
      policyArn: READ_ONLY,
      findingId: 'iam.node-role.ecr-read',
      actions: ['ecr:BatchGetImage'],
    };
    a.roles[NODE_ROLE].attached.push(READ_ONLY);
    const c2 = mockAccount(a);
    const r = await runRemedy(
      { phase: 'apply', incidentId: 'i', cluster: CLUSTER, region: REGION, node, target },
      { clients: c2, config: config(), now: () => 0 },
    );
    c2.restore();
    expect(r).toMatchObject({ status: 'not-needed', reason: expect.stringMatching(/already attached/) });
  });
});

describe('add-sg-rule', () => {
  it('adds TCP 443 from the node security group to the endpoint security group, verified by the re-check', async () => {
    const a = account(sgRevoked);
    const { record, target } = await remedy(a, 'registry-unreachable', 'apply');
    expect(target).toMatchObject({ groupId: ENDPOINT_SG, sourceGroupId: NODE_SG });
    expect(record.status).toBe('verified');
    expect(record.applied?.ruleId).toMatch(/^sgr-/);
    expect(record.diff).toContain(`+ ${ENDPOINT_SG} ingress tcp 443-443 from ${NODE_SG}`);
    expect(a.securityGroups.find((g) => g.GroupId === ENDPOINT_SG)?.IpPermissions).toHaveLength(1);
  });

  it('rolls back when the rule does not hold (a firewall policy removes it): verification fails, state as before', async () => {
    const a = account(sgRevoked);
    const { record } = await remedy(a, 'registry-unreachable', 'apply', {
      faults: { revert: ['AuthorizeSecurityGroupIngressCommand'] },
    });
    expect(record.status).toBe('rolled-back');
    expect(record.verification?.ok).toBe(false);
    expect(a.securityGroups.find((g) => g.GroupId === ENDPOINT_SG)?.IpPermissions).toEqual([]);
  });

  it('fails without changing anything when the write is denied', async () => {
    const a = account(sgRevoked);
    const { record } = await remedy(a, 'registry-unreachable', 'apply', {
      faults: { deny: ['AuthorizeSecurityGroupIngressCommand'] },
    });
    expect(record.status).toBe('failed');
    expect(record.reason).toMatch(/the change failed/);
    expect(a.securityGroups.find((g) => g.GroupId === ENDPOINT_SG)?.IpPermissions).toEqual([]);
  });
});

describe('create-cidr-reservation', () => {
  it('reserves the free aligned /28 for prefixes: free /28 count before and after, protected 0 -> 1', async () => {
    const a = account((x) => fragmentSubnet(x, 212, 1));
    const { record, target } = await remedy(a, 'cidr-fragmentation', 'apply');
    expect(target).toMatchObject({ kind: 'create-cidr-reservation', subnetId: SUBNET });
    expect(record.status).toBe('verified');
    expect(record.diff).toEqual([
      `  subnet ${SUBNET} 10.0.12.0/24: free /28 blocks 1`,
      '- free /28 blocks protected by prefix reservations: 0',
      '+ free /28 blocks protected by prefix reservations: 1',
      '+ reservation prefix 10.0.12.224/28',
    ]);
    expect(a.cidrReservations[SUBNET]).toMatchObject([{ Cidr: '10.0.12.224/28', ReservationType: 'prefix' }]);
  });

  it('never planned when no free aligned /28 exists (a reservation cannot help): the alternatives instead', async () => {
    const a = account((x) => fragmentSubnet(x));
    await expect(remedy(a, 'cidr-fragmentation', 'apply')).rejects.toThrow(
      `no target: subnet ${SUBNET} has no free aligned /28: a prefix reservation cannot help; add a subnet (or a secondary VPC CIDR) for the node group, or move the VPC CNI to secondary IPs (set the cluster's remediation.vpcCniAddon to let pod-doctor do it)`,
    );
    expect(a.cidrReservations[SUBNET]).toEqual([]);
    // With the add-on in scope, the change that can help is planned instead.
    const { target } = await remedy(a, 'cidr-fragmentation', 'prepare', { cfg: config({ vpcCniAddon: true }) });
    expect(target).toMatchObject({ kind: 'use-secondary-ips', subnetId: SUBNET });
  });

  it('not applicable when the last free /28 is taken between Decide and the apply: nothing created', async () => {
    const a = account((x) => fragmentSubnet(x, 212, 1));
    const { record } = await remedy(a, 'cidr-fragmentation', 'apply', {
      afterDecide: () => a.networkInterfaces[0].PrivateIpAddresses?.push({ PrivateIpAddress: '10.0.12.230' }),
    });
    expect(record).toMatchObject({ status: 'not-applicable', reason: expect.stringMatching(/add a subnet/) });
    expect(a.cidrReservations[SUBNET]).toEqual([]);
  });

  it('rolls back (deletes the reservation) when the reserved space is taken before verification', async () => {
    const a = account((x) => fragmentSubnet(x, 212, 1));
    // Another ENI takes an address in the free block right as the reservation lands.
    const { record } = await remedy(a, 'cidr-fragmentation', 'apply', {
      faults: {
        onWrite: {
          CreateSubnetCidrReservationCommand: () =>
            a.networkInterfaces[0].PrivateIpAddresses?.push({ PrivateIpAddress: '10.0.12.230' }),
        },
      },
    });
    expect(record.status).toBe('rolled-back');
    expect(record.verification?.reason).toMatch(/protects no free \/28/);
    expect(a.cidrReservations[SUBNET]).toEqual([]);
  });
});
