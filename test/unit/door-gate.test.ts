import { describe, expect, it } from 'vitest';
import { CLASS_MODES, FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';
import type { Finding } from '../../lambdas/core/contract/findings.js';
import {
  ACTION_KINDS_LIST,
  type Action,
  type ActionRequest,
  canonicalJson,
  requestDigest,
} from '../../lambdas/core/door/action-request.js';
import {
  configuredDisposition,
  effectiveDisposition,
  type GateInput,
  gate,
  KIND_RULES,
} from '../../lambdas/core/door/gate.js';
import {
  awsNodeCause,
  type CauseVerdict,
  nodeCause,
  windowsIpamCause,
} from '../../lambdas/core/policy/cause-evidence.js';
import { decide, type PolicyInput } from '../../lambdas/core/policy/policy.js';
import { planRemedy } from '../../lambdas/core/remedy/plan.js';

const NODE = { instanceId: 'i-0a1b2c3d4e5f60718', name: 'ip-10-0-12-34.eu-west-1.compute.internal' };
const LIMITS = { maxNodeActionsPerClusterPerHour: 5, maxNodeGroupShareAffected: 0.3, nodeCooldownMinutes: 60 };
const holds: CauseVerdict = { status: 'holds', reason: 'the node still fails' };
const request = (action: Action, o: Partial<ActionRequest> = {}): ActionRequest => ({
  slot: 'act',
  action,
  disposition: 'auto',
  description: 'd',
  incident: {
    id: 'inc-1',
    key: 'prod-eu|node:i-0a1b2c3d4e5f60718|sandbox-image',
    class: 'sandbox-image',
    cluster: 'prod-eu',
  },
  execution: 'arn:aws:states:eu-west-1:111122223333:execution:PodDoctorWorkflow:inc-1',
  scope: { region: 'eu-west-1' },
  ...o,
});
const repair: Action = { kind: 'repair-pause-image', node: NODE, image: 'localhost/kubernetes/pause:latest' };
const input = (o: Partial<GateInput> = {}): GateInput => ({
  request: request(repair),
  disposition: { disposition: 'auto', reason: 'in-place action in auto mode' },
  killSwitch: { on: false, readable: true },
  granted: false,
  cause: holds,
  probed: false,
  limits: LIMITS,
  ...o,
});

describe('the door gate: one pure gate for every kind', () => {
  it('runs an auto request whose cause holds', () => {
    expect(gate(input())).toMatchObject({ verdict: 'run', dryRun: false });
  });

  it('the kill switch (on or unreadable) stops every change, before any approval is asked; a read or a dry run passes', () => {
    for (const kind of ACTION_KINDS_LIST.filter((k) => KIND_RULES[k].mutating)) {
      const on = gate(input({ killSwitch: { on: true, readable: true } }));
      expect(on, kind).toEqual({ verdict: 'refuse', code: 'kill-switch', reason: 'kill switch is on' });
    }
    expect(gate(input({ killSwitch: { on: true, readable: false } }))).toMatchObject({
      reason: 'kill switch unreadable: treated as on',
    });
    const approve = { disposition: 'approve' as const, reason: 'asks' };
    expect(gate(input({ killSwitch: { on: true, readable: true }, disposition: approve }))).toMatchObject({
      code: 'kill-switch',
    });
    const probe = request({ kind: 'probe-node', node: NODE });
    expect(gate(input({ request: probe, killSwitch: { on: true, readable: true } })).verdict).toBe('run');
    const dryRun = { disposition: 'dry-run' as const, reason: 'configured' };
    expect(gate(input({ disposition: dryRun, killSwitch: { on: true, readable: true } }))).toMatchObject({
      verdict: 'run',
      dryRun: true,
    });
  });

  it('approving X runs only X: asks without a grant of this digest; refuses an approval that covers another one', () => {
    const approve = { disposition: 'approve' as const, reason: 'the class is in approve mode' };
    expect(gate(input({ disposition: approve }))).toEqual({ verdict: 'ask', reason: 'the class is in approve mode' });
    expect(gate(input({ disposition: approve, granted: true })).verdict).toBe('run');
    // Approved in this pass, but the grant is for another digest (the diff changed meanwhile).
    expect(gate(input({ disposition: approve, answer: { approved: true, reason: 'approved' } }))).toMatchObject({
      verdict: 'refuse',
      code: 'approval-mismatch',
    });
    expect(
      gate(input({ disposition: approve, answer: { approved: false, reason: 'rejected by the approver' } })),
    ).toEqual({ verdict: 'refuse', code: 'not-approved', reason: 'rejected by the approver' });
  });

  it('the cause on the target own evidence: stale means probe first (once), gone or unprovable means no', () => {
    const stale: CauseVerdict = { status: 'stale', reason: 'no probe since the approval' };
    expect(gate(input({ cause: stale }))).toEqual({ verdict: 'probe', reason: 'no probe since the approval' });
    expect(gate(input({ cause: stale, probed: true }))).toMatchObject({ verdict: 'refuse', code: 'no-evidence' });
    expect(gate(input({ cause: { status: 'gone', reason: 'healed' } }))).toMatchObject({ code: 'cause-gone' });
    expect(gate(input({ cause: { status: 'cannot', reason: 'x' } }))).toMatchObject({ code: 'cannot' });
    expect(gate(input({ cause: { status: 'unknown', reason: 'x' } }))).toMatchObject({ code: 'no-evidence' });
    // The cause is judged before an approval is asked: no human is asked to approve what would not run.
    const approve = { disposition: 'approve' as const, reason: 'asks' };
    expect(gate(input({ disposition: approve, cause: { status: 'gone', reason: 'healed' } })).verdict).toBe('refuse');
  });

  it('the breaker stops node-level changes when a large share of the node group is hit (one node never is)', () => {
    expect(gate(input({ breaker: { affectedNodes: 4, nodeGroupSize: 10 } }))).toMatchObject({ code: 'breaker' });
    expect(gate(input({ breaker: { affectedNodes: 1, nodeGroupSize: 2 } })).verdict).toBe('run');
    const account = request({
      kind: 'add-sg-rule',
      groupId: 'sg-0fedcba9876543210',
      sourceGroupId: 'sg-0123456789abcdef0',
      endpoints: [],
      description: 'x',
    });
    expect(gate(input({ request: account, breaker: { affectedNodes: 9, nodeGroupSize: 10 } })).verdict).toBe('run');
  });
});

describe('the configuration decides how a kind runs; the plan never loosens it', () => {
  it('node commands: the door and Decide agree for every class and mode', () => {
    for (const cls of FAILURE_CLASSES)
      for (const mode of CLASS_MODES) {
        const policy: PolicyInput = {
          class: cls,
          mode,
          killSwitch: false,
          clusterOptedIn: true,
          instanceId: NODE.instanceId,
          sandboxImage: 'localhost/kubernetes/pause:latest',
          findings: [{ id: 'iam.node-role.ecr-read', status: 'fail', summary: '', evidence: {}, remediation: null }],
          limits: LIMITS,
          nodeActionsLastHour: 0,
          affectedNodes: 0,
          nodeGroupSize: 0,
          now: 0,
        };
        for (const a of decide(policy).actions.filter((x) => x.document)) {
          const door = configuredDisposition(a.id as Action['kind'], { mode });
          const expected = a.disposition === 'recommend' ? 'refuse' : a.disposition;
          expect(door.disposition, `${cls} ${mode} ${a.id}`).toBe(expected);
        }
      }
  });

  it('remedies: the door and the remedy plan agree for every class, mode and tier', () => {
    for (const cls of ['windows-ipam', 'ipamd-unavailable', 'rate-limited'] as const)
      for (const mode of CLASS_MODES)
        for (const tier of ['dry-run', 'approve', 'auto'] as const) {
          const { remedy } = planRemedy({
            class: cls,
            mode,
            tier,
            killSwitch: false,
            clusterOptedIn: true,
            clusterAccess: true,
            findings: [],
            node: { privateDnsName: NODE.name },
            scope: {
              roles: [],
              endpointSecurityGroups: [],
              subnets: [],
              pullThroughCache: { ecrRepositoryPrefix: 'docker-hub' },
            },
            incidentId: 'i',
            cluster: 'prod-eu',
          });
          const door = configuredDisposition(remedy?.id ?? 'enable-windows-ipam', { mode, remedyTier: tier });
          expect(door.disposition, `${cls} ${mode} ${tier}`).toBe(remedy?.disposition ?? 'refuse');
        }
  });

  it('a cluster-wide CNI change and a drain always ask; the probe always runs', () => {
    expect(configuredDisposition('use-secondary-ips', { mode: 'auto', remedyTier: 'auto' }).disposition).toBe(
      'approve',
    );
    expect(configuredDisposition('drain-node', { mode: 'auto', remedyTier: 'auto' }).disposition).toBe('approve');
    expect(configuredDisposition('probe-node', { mode: 'observe' }).disposition).toBe('auto');
  });

  it('the events write-back runs without approval in every mode, takes no hourly-cap slot, and the kill switch stops it', () => {
    for (const mode of CLASS_MODES)
      expect(configuredDisposition('report-events', { mode, remedyTier: 'approve' }).disposition, mode).toBe('auto');
    expect(KIND_RULES['report-events']).toMatchObject({ mutating: true, nodeLevel: false, hourlyCap: false });
    expect(ACTION_KINDS_LIST.filter((k) => KIND_RULES[k].hourlyCap === false)).toEqual(['report-events']);
    const report: Action = { kind: 'report-events', summaryJson: 'incidents/inc-1/inc-1/summary.json' };
    const events = (killSwitch: GateInput['killSwitch']) =>
      gate(
        input({
          request: request(report, { slot: 'report' }),
          disposition: configuredDisposition('report-events', { mode: 'observe' }),
          killSwitch,
        }),
      );
    expect(events({ on: false, readable: true })).toMatchObject({ verdict: 'run', dryRun: false });
    expect(events({ on: true, readable: false })).toMatchObject({ verdict: 'refuse', code: 'kill-switch' });
  });

  it('a plan asking auto where the configuration asks approve gets approve; never the other way round', () => {
    const approve = { disposition: 'approve' as const, reason: 'config' };
    expect(effectiveDisposition('auto', approve).disposition).toBe('approve');
    expect(effectiveDisposition('approve', { disposition: 'auto', reason: 'config' }).disposition).toBe('approve');
    expect(effectiveDisposition('auto', { disposition: 'refuse', reason: 'observe' }).disposition).toBe('refuse');
  });
});

describe('the digest an approval names', () => {
  const base = request(repair);
  it('is the same for the same request, whatever the key order', () => {
    const action = { image: 'localhost/kubernetes/pause:latest', node: NODE, kind: 'repair-pause-image' as const };
    const reordered: ActionRequest = { ...base, action };
    expect(requestDigest(reordered)).toBe(requestDigest(base));
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });

  it('changes with the action, its target, its diff, the execution and the incident', () => {
    const d = requestDigest(base);
    const variants = [
      requestDigest(request({ ...repair, node: { ...NODE, instanceId: 'i-0a1b2c3d4e5f60719' } })),
      requestDigest(request({ ...repair, image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.10' })),
      requestDigest(request({ kind: 'restart-runtime', node: NODE, target: 'both' })),
      requestDigest(base, ['+ role r policy p']),
      requestDigest(request(repair, { execution: `${base.execution}-2` })),
      requestDigest(request(repair, { incident: { ...base.incident, cluster: 'prod-us' } })),
    ];
    expect(new Set([d, ...variants]).size).toBe(variants.length + 1);
  });
});

describe('evidence the target owns', () => {
  const f = (id: string, status: Finding['status']): Finding => ({
    id,
    status,
    summary: id,
    evidence: {},
    remediation: null,
  });
  it('a node action needs the node own probe, newer than the approval: older evidence is stale', () => {
    const failing = { at: 100, findings: [f('node.sandbox-image.present', 'fail')] };
    expect(nodeCause('node-failing', 'sandbox-image', failing, 50).status).toBe('holds');
    expect(nodeCause('node-failing', 'sandbox-image', failing, 150).status).toBe('stale');
    expect(nodeCause('node-failing', 'sandbox-image', undefined, 0).status).toBe('stale');
    const healed = { at: 100, findings: [f('node.sandbox-image.present', 'pass')] };
    expect(nodeCause('node-failing', 'sandbox-image', healed, 50)).toEqual({
      status: 'gone',
      reason: 'the node no longer fails: pause image present and pinned',
    });
    expect(
      nodeCause('node-failing-or-unreachable', 'pid-exhaustion', { at: 100, notRun: 'NotManaged' }, 0).status,
    ).toBe('holds');
  });

  it("a class the node's own probe cannot show is never acted on, whatever the text that named it", () => {
    const clean = { at: 100, findings: [f('node.pids', 'pass')] };
    expect(nodeCause('node-failing', 'runtime-failure', clean, 0)).toEqual({
      status: 'cannot',
      reason: 'no node-owned evidence can show runtime-failure on the node: reported, not acted on',
    });
    expect(nodeCause('node-failing', 'disk-full', undefined, 0).status).toBe('cannot');
    // Actions that change nothing the cause is about need no proof.
    expect(nodeCause('none', 'runtime-failure', undefined, 0).status).toBe('holds');
  });

  it("aws-node's own pod is the proof of a restart; a tenant's stuck pod never is", () => {
    const ready = { pod: 'aws-node-7xk2p', ready: true, restarts: 0 };
    const cni = { failureClass: 'ipamd-unavailable', cniPolicyAttached: false };
    expect(awsNodeCause('n', ready, cni).status).toBe('gone');
    expect(awsNodeCause('n', { ...ready, ready: false }, cni).status).toBe('holds');
    expect(awsNodeCause('n', undefined, cni).status).toBe('cannot');
    expect(awsNodeCause('n', ready, { failureClass: 'cni-permissions', cniPolicyAttached: true }).status).toBe('holds');
    expect(awsNodeCause('n', ready, { failureClass: 'cni-permissions', cniPolicyAttached: false }).status).toBe('gone');
  });

  it('Windows IPAM is enabled only in a cluster that runs Windows nodes (a kubelet-set label)', () => {
    expect(windowsIpamCause({ configMapExists: true, value: 'false', windowsNodes: 0 }).status).toBe('cannot');
    expect(windowsIpamCause({ configMapExists: true, value: 'false', windowsNodes: 2 }).status).toBe('holds');
    expect(windowsIpamCause({ configMapExists: true, value: 'true', windowsNodes: 2 }).status).toBe('gone');
  });
});
