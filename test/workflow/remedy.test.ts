import { beforeAll, describe, expect, it } from 'vitest';
import type { FailureClass } from '../../lambdas/core/contract/failure-classes.js';
import {
  ACCOUNT,
  type AccountSnapshot,
  detachEcrReadOnlyEvent,
  ENDPOINT_SG,
  fragmentSubnet,
  healthyAccount,
  NODE_ID,
  NODE_ROLE,
  REGION,
  SUBNET,
} from '../../local/account-snapshot.js';
import { withoutGrant } from '../../local/iam.js';
import { DOCUMENTS, definitionOf, runWorkflow } from '../../local/local-workflow.js';
import type { Faults } from '../../local/mock-account.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { LOCAL_CONFIG, type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { incident } from './support.js';

const CNI_ROLE = 'AmazonEKSVPCCNIRole';
const SECRET = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:ecr-pullthroughcache/docker-hub-Xy12Ab`;
const READ_ONLY = 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly';
const BOUNDARY = `arn:aws:iam::${ACCOUNT}:policy/NodeBoundary`;

let template: ResolvedTemplate;
let definition: Record<string, unknown>;
beforeAll(() => {
  template = synthesizedTemplate({
    clusters: [
      {
        ...LOCAL_CONFIG.clusters[0],
        remediation: {
          roles: [NODE_ROLE, CNI_ROLE],
          endpointSecurityGroups: [ENDPOINT_SG],
          subnets: [SUBNET],
          pullThroughCache: { ecrRepositoryPrefix: 'docker-hub', credentialArn: SECRET },
        },
      },
    ],
  });
  definition = definitionOf(template);
});

/** A boundary that allows only EC2 describes and DescribeCluster: neither ECR pulls nor ENI writes. */
function boundary(a: AccountSnapshot, role: string) {
  a.managedPolicies[BOUNDARY] = {
    Statement: [{ Effect: 'Allow', Action: ['ec2:Describe*', 'eks:DescribeCluster'], Resource: '*' }],
  };
  a.roles[role].permissionsBoundary = BOUNDARY;
}

interface PathCase {
  readonly name: string;
  readonly class: FailureClass;
  readonly remedy: string;
  readonly account: (a: AccountSnapshot) => void;
  /** The account change is in place. */
  readonly changed: (a: AccountSnapshot) => boolean;
  /** What makes verification fail after the change. */
  readonly breakVerification: { account?: (a: AccountSnapshot) => void; faults?: (a: AccountSnapshot) => Faults };
  readonly verifiedOutcome: RegExp;
  /** Incident fields over the default incident (e.g. the image a pull failed on). */
  readonly incident?: Record<string, unknown>;
  /** The write the remedy role makes, as IAM authorises it (action and the exact resource). */
  readonly write: { readonly action: string; readonly resource: string };
}

const ec2Arn = (resource: string) => `arn:aws:ec2:${REGION}:${ACCOUNT}:${resource}`;

const CASES: PathCase[] = [
  {
    name: 'revert DetachRolePolicy (node role ECR read), then the pending pause repair',
    class: 'sandbox-image',
    remedy: 'attach-managed-policy',
    account: (a) => {
      a.roles[NODE_ROLE].attached = a.roles[NODE_ROLE].attached.filter((p) => p !== READ_ONLY);
      a.cloudTrailEvents.push(detachEcrReadOnlyEvent());
    },
    changed: (a) => a.roles[NODE_ROLE].attached.includes(READ_ONLY),
    breakVerification: { account: (a) => boundary(a, NODE_ROLE) },
    verifiedOutcome: /^attach-managed-policy verified; repaired and verified$/,
    write: { action: 'iam:AttachRolePolicy', resource: `arn:aws:iam::${ACCOUNT}:role/${NODE_ROLE}` },
  },
  {
    name: 'AmazonEKS_CNI_Policy on the role aws-node uses (IRSA)',
    class: 'cni-permissions',
    remedy: 'attach-managed-policy',
    account: (a) => {
      a.addons[0].serviceAccountRoleArn = `arn:aws:iam::${ACCOUNT}:role/${CNI_ROLE}`;
      a.roles[CNI_ROLE] = { attached: [], inline: {} };
    },
    changed: (a) => a.roles[CNI_ROLE].attached.includes('arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy'),
    breakVerification: { account: (a) => boundary(a, CNI_ROLE) },
    // The attach is verified; its follow-up, restarting aws-node, needs the cluster's API, which does
    // not accept pod-doctor here (no access entry): cluster-remedy.test.ts runs it against an API server.
    verifiedOutcome:
      /^attach-managed-policy verified; restart-aws-node failed: the cluster's API did not answer \(KubernetesUnauthorizedError: /,
    write: { action: 'iam:AttachRolePolicy', resource: `arn:aws:iam::${ACCOUNT}:role/${CNI_ROLE}` },
  },
  {
    name: 'TCP 443 from the node group on the ECR endpoint group',
    class: 'registry-unreachable',
    remedy: 'add-sg-rule',
    account: (a) => {
      for (const g of a.securityGroups) if (g.GroupId === ENDPOINT_SG) g.IpPermissions = [];
    },
    changed: (a) => (a.securityGroups.find((g) => g.GroupId === ENDPOINT_SG)?.IpPermissions ?? []).length === 1,
    // A firewall policy (e.g. Firewall Manager) removes the rule right after it is added.
    breakVerification: { faults: () => ({ revert: ['AuthorizeSecurityGroupIngressCommand'] }) },
    verifiedOutcome: /^remedied and verified: allow TCP 443 from sg-0123456789abcdef0 on sg-0fedcba9876543210/,
    write: { action: 'ec2:AuthorizeSecurityGroupIngress', resource: ec2Arn(`security-group/${ENDPOINT_SG}`) },
  },
  {
    name: 'prefix CIDR reservation over the free aligned /28',
    class: 'cidr-fragmentation',
    remedy: 'create-cidr-reservation',
    account: (a) => fragmentSubnet(a, 212, 1),
    changed: (a) => (a.cidrReservations[SUBNET] ?? []).length === 1,
    // Another ENI takes an address of the free block as the reservation lands.
    breakVerification: {
      faults: (a) => ({
        onWrite: {
          CreateSubnetCidrReservationCommand: () =>
            a.networkInterfaces[0].PrivateIpAddresses?.push({ PrivateIpAddress: '10.0.12.230' }),
        },
      }),
    },
    verifiedOutcome:
      /^remedied and verified: create a prefix-type CIDR reservation over the free aligned space of subnet-/,
    write: { action: 'ec2:CreateSubnetCidrReservation', resource: ec2Arn(`subnet/${SUBNET}`) },
  },
  {
    name: 'ECR pull-through cache rule for Docker Hub, credentials from Secrets Manager',
    class: 'rate-limited',
    remedy: 'create-pull-through-cache',
    incident: { entities: { image: 'httpd:latest' }, scope: 'image', scopeValue: 'registry-1.docker.io' },
    account: (a) => {
      a.secrets = { [SECRET]: { loginValid: true } };
    },
    changed: (a) => (a.pullThroughCacheRules ?? []).some((r) => r.upstreamRegistryUrl === 'registry-1.docker.io'),
    // The Docker Hub token in the secret was revoked: ECR cannot log in upstream with the rule.
    breakVerification: {
      account: (a) => {
        a.secrets = { [SECRET]: { loginValid: false } };
      },
    },
    verifiedOutcome:
      /^remedied and verified: create an ECR pull-through cache rule docker-hub → registry-1\.docker\.io/,
    // Rule actions have no resource type: the Region condition is what scopes them.
    write: { action: 'ecr:CreatePullThroughCacheRule', resource: '*' },
  },
];

function incidentFor(cls: FailureClass, over: Record<string, unknown> = {}) {
  return incident({
    class: cls,
    incidentKey: `prod-eu|node:${NODE_ID}|${cls}`,
    cause: `${cls} in the field`,
    ...over,
  });
}

async function run(
  c: PathCase,
  o: {
    mode: 'approve' | 'auto';
    tier?: 'dry-run' | 'approve' | 'auto';
    approval?: 'approve' | 'reject';
    killSwitch?: 'on';
    broken?: boolean;
    template?: ResolvedTemplate;
  },
) {
  const account = healthyAccount();
  c.account(account);
  if (o.broken) c.breakVerification.account?.(account);
  const faults = o.broken ? c.breakVerification.faults?.(account) : undefined;
  const r = await runWorkflow(incidentFor(c.class, c.incident), {
    account,
    faults,
    template: o.template ?? template,
    definition: o.template ? definitionOf(o.template) : definition,
    node: simulatedPauseNode(),
    modes: { [c.class]: o.mode },
    remedies: o.tier ? { [c.class]: o.tier } : {},
    approval: o.approval,
    killSwitch: o.killSwitch,
  });
  const summary = (r.output.summary ?? {}) as { outcome: string; message: string };
  return { r, account, summary };
}

describe.each(CASES)('apply path: $name', { timeout: 30_000 }, (c) => {
  it('approve (default tier): the e-mail shows the dry-run diff; after approval the change is made, re-checked and verified', async () => {
    const { r, account, summary } = await run(c, { mode: 'approve', approval: 'approve' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    const request = r.sns.find((m) => /approval needed/.test(m.subject ?? ''));
    expect(request?.subject).toContain(`approval needed: ${c.remedy}`);
    expect(request?.message).toMatch(/CHANGE \(dry run: - before, \+ after\)\n(\s+[ +-] .*\n)*\s+\+ /);
    expect(r.states).toEqual(expect.arrayContaining(['Remedy: request', 'Door: ask', 'Door']));
    // The approval covers exactly the change the e-mail shows: its digest is in the e-mail and granted.
    const digest = /APPROVES {2}request ([0-9a-f]{16})/.exec(request?.message ?? '')?.[1];
    expect((await r.table.scan()).some((x) => String(x.pk).startsWith(`GRANT#${digest}`))).toBe(true);
    expect(c.changed(account)).toBe(true);
    expect(summary.outcome).toMatch(c.verifiedOutcome);
    expect(summary.message).toMatch(new RegExp(`${c.remedy}: verified \\(approved through the signed link at 20`));
  });

  it('the write goes through IAM as the remedy role, on exactly the target; before/after state is evidence', async () => {
    const { r } = await run(c, { mode: 'auto', tier: 'auto' });
    const writes = r.decisions.filter((d) => d.action === c.write.action);
    expect(writes.map(({ context: _, ...d }) => ({ ...d, principal: d.principal.replace(/.*:role\//, '') }))).toEqual([
      { principal: expect.stringMatching(/Door/), action: c.write.action, resource: c.write.resource, allowed: true },
    ]);
    const evidence = JSON.parse([...r.evidence].find(([k]) => k.endsWith('/summary.json'))?.[1] ?? '{}');
    const action = evidence.actions.find((a: { id: string }) => a.id === c.remedy);
    expect(action.status).toBe('verified');
    expect(action.evidence.before).not.toEqual(action.evidence.after);
    expect(action.evidence.verification).toMatchObject({ ok: true });
  });

  it('without its grant in the template, the write is denied (the runtime enforces IAM) and nothing changes', async () => {
    const denied = withoutGrant(template, /Door/, c.write.action);
    const { r, account, summary } = await run(c, { mode: 'auto', tier: 'auto', template: denied });
    expect(r.decisions.filter((d) => d.action === c.write.action).map((d) => d.allowed)).toEqual([false]);
    expect(c.changed(account)).toBe(false);
    expect(summary.outcome).toMatch(
      new RegExp(`^${c.remedy} failed: the change failed: (AccessDenied|UnauthorizedOperation)`),
    );
  });

  it('a rejected approval changes nothing', async () => {
    const { account, summary } = await run(c, { mode: 'approve', approval: 'reject' });
    expect(c.changed(account)).toBe(false);
    expect(summary.outcome).toBe('no action: rejected by the approver');
  });

  it('auto (opt-in per class, class in auto mode): applied and verified without asking', async () => {
    const { r, account, summary } = await run(c, { mode: 'auto', tier: 'auto' });
    expect(r.states).not.toContain('Door: ask');
    expect(r.sns.filter((m) => /approval needed/.test(m.subject ?? ''))).toEqual([]);
    expect(c.changed(account)).toBe(true);
    expect(summary.outcome).toMatch(c.verifiedOutcome);
  });

  it('dry run: the diff in the summary, the account untouched', async () => {
    const { r, account, summary } = await run(c, { mode: 'auto', tier: 'dry-run' });
    expect(r.states).toContain('Remedy: request');
    expect(r.decisions.filter((d) => d.action === c.write.action)).toEqual([]);
    expect(c.changed(account)).toBe(false);
    expect(summary.outcome).toMatch(/^dry run: would /);
    expect(summary.message).toMatch(new RegExp(`${c.remedy}: dry-run`));
    expect(summary.message).toMatch(/\n\s+\+ /);
  });

  it('verification fails → rolled back automatically, the account as before, never "verified"', async () => {
    const { r, account, summary } = await run(c, { mode: 'auto', tier: 'auto', broken: true });
    expect(r.decisions.filter((d) => d.action === c.write.action && d.allowed)).toHaveLength(1);
    expect(c.changed(account)).toBe(false);
    expect(summary.outcome).toMatch(new RegExp(`^${c.remedy} rolled-back: verification failed`));
    expect(summary.outcome).not.toMatch(/ verified/);
    expect(r.commands.map((x) => x.document)).not.toContain(DOCUMENTS.repairPauseImage);
  });

  it('kill switch on: nothing prepared, nothing changed', async () => {
    const { r, account, summary } = await run(c, { mode: 'auto', tier: 'auto', killSwitch: 'on' });
    expect(r.states).not.toContain('Remedy: request');
    expect(c.changed(account)).toBe(false);
    expect(summary.message).toContain(`${c.remedy}: kill switch is on`);
  });
});

describe('the remedy branch costs a plan without a remedy nothing', () => {
  it('with remediation configured, the auto pause repair enters no remedy state and stays under 50 transitions', async () => {
    const r = await runWorkflow(incident(), {
      account: healthyAccount(),
      template,
      definition,
      node: simulatedPauseNode(),
    });
    expect((r.output.summary as { outcome: string }).outcome).toBe('repaired and verified');
    expect(r.states.filter((s) => /remedy/i.test(s))).toEqual([]);
    expect(r.transitions).toBeLessThan(50);
  });
});

describe('create-pull-through-cache reports the exact image references', () => {
  it('the next step names the ECR reference of the image that hit the limit', async () => {
    const c = CASES.find((x) => x.remedy === 'create-pull-through-cache') as PathCase;
    const { summary } = await run(c, { mode: 'auto', tier: 'auto' });
    expect(summary.message).toContain(
      `point the workloads at the cache: ${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/docker-hub/library/httpd:latest`,
    );
  });

  it('names the node role that may not pull through the cache, with the statement to add; a role that may is not named', async () => {
    const c = CASES.find((x) => x.remedy === 'create-pull-through-cache') as PathCase;
    const { summary } = await run(c, { mode: 'auto', tier: 'auto' });
    const repo = `arn:aws:ecr:${REGION}:${ACCOUNT}:repository/docker-hub/*`;
    expect(summary.message).toContain(
      `allow the node role(s) arn:aws:iam::${ACCOUNT}:role/${NODE_ROLE} (missing ecr:BatchImportUpstreamImage, ecr:CreateRepository) to pull through the cache: {"Effect":"Allow","Action":["ecr:BatchImportUpstreamImage","ecr:CreateRepository"],"Resource":"${repo}"}`,
    );
    expect(summary.message).toMatch(
      /node role \S+: lacks ecr:BatchImportUpstreamImage, ecr:CreateRepository on docker-hub/,
    );
    const allowed = await run(
      {
        ...c,
        account: (a) => {
          c.account(a);
          a.roles[NODE_ROLE].inline.PullThroughCache = {
            Statement: [
              {
                Effect: 'Allow',
                Action: ['ecr:BatchImportUpstreamImage', 'ecr:CreateRepository'],
                Resource: repo,
              },
            ],
          };
        },
      },
      { mode: 'auto', tier: 'auto' },
    );
    expect(allowed.summary.outcome).toMatch(c.verifiedOutcome);
    expect(allowed.summary.message).not.toContain('allow the node role(s)');
    expect(allowed.summary.message).toMatch(
      /node role \S+: allowed ecr:BatchImportUpstreamImage, ecr:CreateRepository/,
    );
  });
});
