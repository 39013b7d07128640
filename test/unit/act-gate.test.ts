import { describe, expect, it } from 'vitest';
import { type GateFacts, gateBlock } from '../../lambdas/core/act-gate.js';
import type { Finding } from '../../lambdas/core/findings.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const pids = (status: Finding['status']): Finding => ({
  id: 'node.pids',
  status,
  summary: 'PID/thread use',
  evidence: {},
  remediation: null,
});
const facts = (over: Partial<GateFacts> = {}): GateFacts => ({
  class: 'pid-exhaustion',
  action: 'restart-runtime',
  killSwitch: false,
  killSwitchReadable: true,
  limits: { maxNodeActionsPerClusterPerHour: 5, maxNodeGroupShareAffected: 0.3, nodeCooldownMinutes: 60 },
  affectedNodes: 1,
  nodeGroupSize: 10,
  probe: { findings: [pids('fail')] },
  now: NOW,
  ...over,
});

describe('the gate right before Act (issue 12, finding 5)', () => {
  it('lets a restart of a node that still fails through', () => {
    expect(gateBlock(facts())).toBeUndefined();
  });

  it('names the first rule that blocks: kill switch, cooldown, breaker, node no longer failing', () => {
    expect(gateBlock(facts({ killSwitch: true }))).toBe('kill switch is on');
    expect(gateBlock(facts({ killSwitch: true, killSwitchReadable: false }))).toBe(
      'kill switch unreadable: treated as on',
    );
    expect(gateBlock(facts({ lastNodeActionAt: NOW - 30 * 60_000 }))).toMatch(/^cooldown: /);
    expect(gateBlock(facts({ affectedNodes: 4 }))).toMatch(/^breaker: 4\/10 nodes/);
    expect(gateBlock(facts({ probe: { findings: [pids('pass')] } }))).toBe(
      'the node no longer fails: PID/thread use back under the limit',
    );
    expect(gateBlock(facts({ probe: { notRun: 'probe NotManaged' } }))).toBe(
      'cannot tell whether the node still fails: probe NotManaged',
    );
  });

  it('collecting logs reads the node: it needs no proof that the node still fails', () => {
    expect(gateBlock(facts({ action: 'collect-logs', probe: { findings: [pids('pass')] } }))).toBeUndefined();
    expect(gateBlock(facts({ action: 'collect-logs', killSwitch: true }))).toBe('kill switch is on');
  });

  it('a drain goes through the Kubernetes API: a node SSM cannot reach is drained, a healed one is not', () => {
    const drain = (over: Partial<GateFacts>) => gateBlock(facts({ action: 'drain-node', ...over }));
    expect(drain({ probe: { notRun: 'the probe before acting did not run (NotManaged)' } })).toBeUndefined();
    expect(drain({ probe: { findings: [pids('pass')] } })).toBe(
      'the node no longer fails: PID/thread use back under the limit',
    );
    expect(drain({ killSwitch: true })).toBe('kill switch is on');
    expect(drain({ affectedNodes: 4 })).toMatch(/^breaker: /);
  });
});
