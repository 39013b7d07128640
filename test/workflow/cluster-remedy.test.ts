import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FailureClass } from '../../lambdas/core/contract/failure-classes.js';
import type { WorkflowConfig } from '../../lambdas/core/workflow/workflow-config.js';
import {
  ACCOUNT,
  type AccountSnapshot,
  ENDPOINT_SG,
  healthyAccount,
  NODE_DNS,
  NODE_ID,
  NODE_ROLE,
  SUBNET,
} from '../../local/account-snapshot.js';
import { accessKeyOfToken } from '../../local/eks-token.js';
import { isChange, isEventReport } from '../../local/kube-api-helpers.js';
import { roleCredentials } from '../../local/kubernetes.js';
import { clusterOnNode, LocalCluster, withWindowsNode } from '../../local/local-cluster.js';
import { DOCUMENTS, definitionOf, type RunResult, runWorkflow, warmUpRuntime } from '../../local/local-workflow.js';
import { simulatedNode } from '../../local/node-adapters.js';
import { LOCAL_CONFIG, type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { incident, summaryOf } from './support.js';

/**
 * Cluster remedies through the synthesized workflow: Decide plans them, the door runs the apply path
 * against a local HTTPS API server (recorded objects, the shipped RBAC, each caller authorized by
 * its own access entry) — approval, auto, dry run, failed verification, kill switch.
 */

const CNI_ROLE = 'AmazonEKSVPCCNIRole';
const CNI_POLICY = 'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy';

let template: ResolvedTemplate;
let definition: Record<string, unknown>;
beforeAll(() => {
  template = synthesizedTemplate({
    clusters: [
      {
        ...LOCAL_CONFIG.clusters[0],
        remediation: { roles: [NODE_ROLE, CNI_ROLE], endpointSecurityGroups: [ENDPOINT_SG], subnets: [SUBNET] },
      },
    ],
  });
  definition = definitionOf(template);
  return warmUpRuntime(template);
});

let cluster: LocalCluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

interface ClusterCase {
  readonly name: string;
  readonly class: FailureClass;
  readonly remedy: string;
  /** The change is in place in the cluster. */
  readonly changed: (c: LocalCluster) => boolean;
  /** The one write the change makes. */
  readonly write: string;
  /** What makes verification fail after the change. */
  readonly broken: { awsNodeReadyAfterMs?: undefined; vpcCniConfigMapSelfHeals?: boolean };
  readonly verifiedOutcome: RegExp;
  /** The status after a failed verification: rolled back, or (a restart) not undoable. */
  readonly brokenStatus: RegExp;
}

const CASES: ClusterCase[] = [
  {
    name: 'restart aws-node on the resolved node (ipamd unreachable)',
    class: 'ipamd-unavailable',
    remedy: 'restart-aws-node',
    // The DaemonSet controller's replacement (the recorded pod's uid is aws-node-uid).
    changed: (c) => /^aws-node-uid-\w+$/.test(String((c.awsNodeOn()?.metadata as { uid?: string } | undefined)?.uid)),
    write: 'DELETE /api/v1/namespaces/kube-system/pods/aws-node-7xk2p',
    broken: { awsNodeReadyAfterMs: undefined },
    // ipamd-unavailable also collects the node's logs once the remedy is verified (an in-place action).
    verifiedOutcome: /^restart-aws-node verified; collect-logs done$/,
    brokenStatus:
      /^restart-aws-node rollback-failed: verification failed \(aws-node aws-node-\w+ on .* is not Ready\); the rollback failed: IrreversibleActionError: a restart cannot be undone/,
  },
  {
    name: 'set enable-windows-ipam (Windows pods without their IP label)',
    class: 'windows-ipam',
    remedy: 'enable-windows-ipam',
    changed: (c) => c.windowsIpam() === 'true',
    write: 'PATCH /api/v1/namespaces/kube-system/configmaps/amazon-vpc-cni',
    broken: { vpcCniConfigMapSelfHeals: true },
    verifiedOutcome:
      /^remedied and verified: set enable-windows-ipam: "true" in ConfigMap kube-system\/amazon-vpc-cni$/,
    brokenStatus:
      /^enable-windows-ipam rolled-back: verification failed \(enable-windows-ipam reads false after the patch\); the change was rolled back$/,
  },
];

interface RunOptions {
  mode: 'observe' | 'approve' | 'auto';
  tier?: 'dry-run' | 'approve' | 'auto';
  approval?: 'approve' | 'reject';
  killSwitch?: 'on';
  broken?: ClusterCase['broken'];
  cls: FailureClass;
  template?: ResolvedTemplate;
  approvals?: readonly ('approve' | 'reject' | 'unanswered')[];
  /** What someone changes in the cluster while the approval waits. */
  duringApproval?: (c: LocalCluster) => void;
}

async function run(
  o: RunOptions,
  account = healthyAccount(),
): Promise<{ r: RunResult; c: LocalCluster; outcome: string; message: string }> {
  const c = await LocalCluster.start(withWindowsNode(clusterOnNode(NODE_DNS)), {
    behaviour: o.broken ?? {},
    watchSeconds: 1,
  });
  cluster = c;
  const r = await runWorkflow(
    incident({ class: o.cls, incidentKey: `prod-eu|node:${NODE_ID}|${o.cls}`, cause: `${o.cls} in the field` }),
    {
      account,
      template: o.template ?? template,
      definition: o.template ? definitionOf(o.template) : definition,
      node: simulatedNode([]),
      modes: { [o.cls]: o.mode },
      remedies: o.tier ? { [o.cls]: o.tier } : {},
      approval: o.approval,
      approvals: o.approvals,
      duringApproval: o.duringApproval ? () => o.duringApproval?.(c) : undefined,
      killSwitch: o.killSwitch,
      kubernetes: c.kubernetes,
    },
  );
  const { outcome, message } = summaryOf(r);
  return { r, c, outcome, message };
}

// A real TLS handshake per API call: slower than the account remedy tests.
describe.each(CASES)('cluster remedy: $name', { timeout: 60_000 }, (k) => {
  const opts = (o: Omit<RunOptions, 'cls'>) => run({ ...o, cls: k.class });

  it('approve (default tier): the dry-run diff in the e-mail; after approval the door changes, re-reads and verifies', async () => {
    const { r, c, outcome, message } = await opts({ mode: 'approve', approval: 'approve' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    const request = r.sns.find((m) => /approval needed/.test(m.subject ?? ''));
    expect(request?.subject).toContain(`approval needed: ${k.remedy}`);
    expect(request?.message).toMatch(/CHANGE \(dry run: - before, \+ after\)\n(\s+[ +-] .*\n)*\s+\+ /);
    expect(r.states).toEqual(expect.arrayContaining(['Remedy: request', 'Door: ask', 'Door']));
    expect(k.changed(c)).toBe(true);
    expect(c.writes()).toEqual([k.write]);
    // Reported back where kubectl shows it: an event on the node (namespace default, as for any Node).
    expect(c.reports()).toContainEqual({ namespace: 'default', regarding: `Node/${NODE_DNS}` });
    expect(outcome).toMatch(k.verifiedOutcome);
    expect(message).toMatch(new RegExp(`${k.remedy}: verified \\(approved through the signed link at 20`));
  });

  it("the write is the door role's, through its own access entry; the Kubernetes function only reads", async () => {
    const { r, c } = await opts({ mode: 'auto', tier: 'auto' });
    const invokes = r.decisions.filter(
      (d) => d.action === 'lambda:InvokeFunction' && /Kubernetes/.test(d.resource) && /StateMachine/.test(d.principal),
    );
    // Inspect cluster only: the change is the door's.
    expect(invokes.map((d) => d.allowed)).toEqual([true]);
    const doorRole = r.decisions.find((d) => /DoorFunction/.test(d.principal))?.principal ?? '';
    const key = roleCredentials(doorRole).accessKeyId;
    const writes = c.server.seen.filter(isChange);
    expect(writes.map((x) => `${x.method} ${x.path}`)).toEqual([k.write]);
    expect(writes.map((x) => accessKeyOfToken(x.authorization))).toEqual([key]);
    // The run's report (events on the node and its stuck pods) is the door's write too.
    const reports = c.server.seen.filter(isEventReport);
    expect(reports.length).toBeGreaterThan(0);
    expect(new Set(reports.map((x) => accessKeyOfToken(x.authorization)))).toEqual(new Set([key]));
    // The Kubernetes function signs with its own key: the API server knows it, with the read group only.
    const readers = c.server.seen.filter((x) => accessKeyOfToken(x.authorization) !== key);
    expect(readers.length).toBeGreaterThan(0);
    expect(readers.every((x) => x.method === 'GET')).toBe(true);
  });

  it('a rejected approval changes nothing', async () => {
    const { c, outcome } = await opts({ mode: 'approve', approval: 'reject' });
    expect(k.changed(c)).toBe(false);
    expect(c.writes()).toEqual([]);
    expect(outcome).toBe('no action: rejected by the approver');
  });

  it('auto (opt-in per class, class in auto mode): applied and verified without asking', async () => {
    const { r, c, outcome } = await opts({ mode: 'auto', tier: 'auto' });
    expect(r.states).not.toContain('Door: ask');
    expect(k.changed(c)).toBe(true);
    expect(outcome).toMatch(k.verifiedOutcome);
  });

  it('dry run: the diff in the summary, the cluster untouched', async () => {
    const { r, c, outcome, message } = await opts({ mode: 'auto', tier: 'dry-run' });
    expect(r.states).toContain('Remedy: request');
    expect(c.writes()).toEqual([]);
    expect(outcome).toMatch(/^dry run: would /);
    expect(message).toMatch(new RegExp(`${k.remedy}: dry-run`));
  });

  it('verification fails → rolled back where a rollback exists, never "verified"', async () => {
    const { r, outcome, message } = await opts({ mode: 'auto', tier: 'auto', broken: k.broken });
    expect(r.states).toContain('Door');
    expect(outcome).toMatch(k.brokenStatus);
    // A restart has nothing to undo by hand; a ConfigMap rolled back needs no undo either.
    expect(message).not.toMatch(/undo by hand/);
    expect(outcome).not.toMatch(/ verified/);
    expect(r.commands.map((x) => x.document)).not.toContain(DOCUMENTS.collectLogs);
  });

  it('kill switch on: nothing prepared, nothing changed', async () => {
    const { r, c, message } = await opts({ mode: 'auto', tier: 'auto', killSwitch: 'on' });
    expect(r.states).not.toContain('Remedy: request');
    expect(c.writes()).toEqual([]);
    expect(message).toContain(`${k.remedy}: kill switch is on`);
  });

  it('observe mode: recommended only, the cluster untouched', async () => {
    const { r, c, outcome } = await opts({ mode: 'observe', tier: 'auto' });
    expect(r.states).not.toContain('Remedy: request');
    expect(c.writes()).toEqual([]);
    expect(outcome).toBe('diagnosed; action recommended');
  });
});

/** The managed vpc-cni add-on gives aws-node a role (IRSA) without AmazonEKS_CNI_Policy. */
function cniAccount(o: { boundary?: boolean } = {}): AccountSnapshot {
  const a = healthyAccount();
  a.addons[0].serviceAccountRoleArn = `arn:aws:iam::${ACCOUNT}:role/${CNI_ROLE}`;
  a.roles[CNI_ROLE] = { attached: [], inline: {} };
  if (o.boundary) {
    const boundary = `arn:aws:iam::${ACCOUNT}:policy/EksWorkloadBoundary`;
    a.managedPolicies[boundary] = {
      Statement: [{ Effect: 'Allow', Action: ['ec2:Describe*', 'eks:DescribeCluster'], Resource: '*' }],
    };
    a.roles[CNI_ROLE].permissionsBoundary = boundary;
  }
  return a;
}

describe("CNI permissions: the policy attach, then aws-node restarted on the node (the plan's follow-up remedy)", {
  timeout: 60_000,
}, () => {
  const cni = (o: Omit<RunOptions, 'cls'>, account = cniAccount()) =>
    run({ ...o, cls: 'cni-permissions' }, account).then((x) => ({ ...x, account }));
  const attached = (a: AccountSnapshot) => a.roles[CNI_ROLE].attached.includes(CNI_POLICY);
  const BOTH = `remedied and verified: attach ${CNI_POLICY} to role ${CNI_ROLE}; then restart aws-node on node ${NODE_DNS} (delete the pod of DaemonSet kube-system/aws-node there)`;

  it('approve: each change asks with its own dry-run diff; both applied and verified, in order', async () => {
    const { r, c, account, outcome, message } = await cni({ mode: 'approve', approval: 'approve' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.sns.filter((m) => /approval needed/.test(m.subject ?? '')).map((m) => m.subject)).toEqual([
      expect.stringContaining('approval needed: attach-managed-policy'),
      expect.stringContaining('approval needed: restart-aws-node'),
    ]);
    const order = ['Remedy: request', 'Remedy done?', 'Remedy follow-up: request'];
    expect(order.map((s) => r.states.indexOf(s))).toEqual(
      [...order.map((s) => r.states.indexOf(s))].sort((a, b) => a - b),
    );
    expect(attached(account)).toBe(true);
    expect(c.writes()).toEqual(['DELETE /api/v1/namespaces/kube-system/pods/aws-node-7xk2p']);
    expect(outcome).toBe(BOTH);
    expect(message).toMatch(/attach-managed-policy: verified \(approved/);
    expect(message).toMatch(/restart-aws-node: verified \(approved/);
    // Two approvals, each named: the second answer does not replace the first.
    expect(message).toMatch(
      /\nAPPROVAL {6}2 of 2 required approvals given: attach-managed-policy approved at \S+ from 203\.0\.113\.10 \(user agent [^)]+\)\); restart-aws-node approved at \S+ from 203\.0\.113\.10 /,
    );
  });

  it('auto: both without asking', async () => {
    const { r, c, account, outcome } = await cni({ mode: 'auto', tier: 'auto' });
    expect(r.states).not.toContain('Door: ask');
    expect(attached(account)).toBe(true);
    expect(c.writes()).toEqual(['DELETE /api/v1/namespaces/kube-system/pods/aws-node-7xk2p']);
    expect(outcome).toBe(BOTH);
  });

  it('the restart fails verification: the verified attach stays, the outcome says what failed', async () => {
    const { account, outcome } = await cni({ mode: 'auto', tier: 'auto', broken: { awsNodeReadyAfterMs: undefined } });
    expect(attached(account)).toBe(true);
    expect(outcome).toMatch(/^attach-managed-policy verified; restart-aws-node rollback-failed: verification failed/);
  });

  it('the attach fails verification (a boundary denies the ENI calls): rolled back, aws-node never touched', async () => {
    const { r, c, account, outcome } = await cni({ mode: 'auto', tier: 'auto' }, cniAccount({ boundary: true }));
    expect(attached(account)).toBe(false);
    expect(r.states).not.toContain('Remedy follow-up: request');
    expect(c.writes()).toEqual([]);
    expect(outcome).toMatch(/^attach-managed-policy rolled-back: verification failed/);
  });

  it('dry run: the attach diff only (the restart follows an applied attach), nothing changed', async () => {
    const { r, c, account, outcome } = await cni({ mode: 'auto', tier: 'dry-run' });
    expect(r.states).not.toContain('Remedy follow-up: request');
    expect(attached(account)).toBe(false);
    expect(c.writes()).toEqual([]);
    expect(outcome).toBe(`dry run: would attach ${CNI_POLICY} to role ${CNI_ROLE}`);
  });

  it('kill switch on: nothing prepared, nothing changed', async () => {
    const { r, c, account } = await cni({ mode: 'auto', tier: 'auto', killSwitch: 'on' });
    expect(r.states.filter((s) => /remedy/i.test(s))).toEqual([]);
    expect(attached(account)).toBe(false);
    expect(c.writes()).toEqual([]);
  });
});

/** The template with its configuration document changed by `change` (as a different deployment writes it). */
function withDocument(t: ResolvedTemplate, change: (doc: WorkflowConfig) => WorkflowConfig): ResolvedTemplate {
  const copy = structuredClone(t);
  for (const r of Object.values(copy.Resources)) {
    const p = r.Properties as { Document?: string } | undefined;
    if (r.Type === 'Custom::PodDoctorConfig' && p?.Document)
      p.Document = JSON.stringify(change(JSON.parse(p.Document)));
  }
  return copy;
}

/** A stack without the Kubernetes function; a cluster configured without Kubernetes API access (CONFIG_MAP). */
const NO_ACCESS: [string, (doc: WorkflowConfig) => WorkflowConfig][] = [
  ['the configuration says clusterAccess: false', (doc) => ({ ...doc, clusterAccess: false })],
  [
    'the cluster says kubernetesApi: false',
    (doc) => ({ ...doc, clusters: doc.clusters.map((c) => ({ ...c, kubernetesApi: false })) }),
  ],
];

describe.each(NO_ACCESS)('without cluster access (%s)', { timeout: 60_000 }, (_, change) => {
  it('Decide plans no cluster remedy and says "recommend: no cluster access" with the command to run by hand', async () => {
    const { r, c, outcome, message } = await run({
      mode: 'auto',
      tier: 'auto',
      cls: 'windows-ipam',
      template: withDocument(template, change),
    });
    expect(r.states.filter((s) => /remedy/i.test(s))).toEqual([]);
    expect(c.writes()).toEqual([]);
    expect(outcome).toBe('diagnosed; action recommended');
    expect(message).toContain(
      'recommend: no cluster access (no Kubernetes function, or the cluster has kubernetesApi: false): set enable-windows-ipam',
    );
  });
});

describe('an approval covers exactly the change it showed', { timeout: 60_000 }, () => {
  /** The DaemonSet replaced aws-node on the node while the approval waited (a new pod, still not Ready). */
  const awsNodeReplaced = (c: LocalCluster) => {
    const pod = c.awsNodeOn() as { metadata: { name: string; uid?: string } };
    pod.metadata.name = 'aws-node-9zq4w';
    pod.metadata.uid = 'aws-node-uid-replaced';
  };

  it('the pod it showed was replaced during the wait: the approval does not cover the new one, nothing is deleted', async () => {
    const { r, c, outcome, message } = await run({
      mode: 'approve',
      cls: 'ipamd-unavailable',
      approvals: ['approve'],
      duringApproval: awsNodeReplaced,
    });
    const ask = r.sns.find((m) => /approval needed/.test(m.subject ?? ''))?.message ?? '';
    expect(ask).toContain('aws-node-7xk2p');
    expect(c.writes()).toEqual([]);
    expect(outcome).not.toMatch(/verified/);
    expect(message).toMatch(/does not cover this exact action and change/);
  });

  it('the state it showed unchanged: the approved restart runs, once', async () => {
    const { r, c } = await run({ mode: 'approve', cls: 'ipamd-unavailable', approvals: ['approve'] });
    const subjects = r.sns.filter((m) => /approval needed/.test(m.subject ?? '')).map((m) => m.subject);
    expect(subjects[0]).toContain('approval needed: restart-aws-node');
    expect(c.writes()).toEqual(['DELETE /api/v1/namespaces/kube-system/pods/aws-node-7xk2p']);
  });
});
