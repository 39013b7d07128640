import { afterEach, describe, expect, it, vi } from 'vitest';
import { configVersion } from '../../lambdas/aws/runtime/config-store.js';
import { FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';
import { configKey } from '../../lambdas/core/contract/incident-table.js';
import { CONFIG_INTEGRITY_MISMATCH } from '../../lambdas/core/contract/metric-names.js';
import { configResourceOf, deployConfig, loadConfigAs, roleOfHandler } from '../../local/config-store.js';
import { TemplateAuthorizer } from '../../local/iam.js';
import { freshIncidentTable } from '../../local/local-workflow.js';
import { synthesizedTemplate } from '../../local/template.js';

/**
 * The configuration is accepted only as the deployment pinned it (issue 34): every function's
 * environment carries the version CloudFormation got from the config writer (the document's hash),
 * and a document under that key that hashes to anything else — written by a role or an operator with
 * table write, every class turned to `auto` — is read observe-only, with a metric the stack alarms on.
 */
const template = synthesizedTemplate();

afterEach(() => {
  vi.restoreAllMocks();
});

/** The stored document rewritten as an attacker would: every class auto, every remedy auto, an image trusted. */
function tamper(document: string): string {
  const d = JSON.parse(document);
  d.modes = Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 'auto']));
  d.remedies = Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 'auto']));
  d.trustedSandboxImages = ['attacker.example/pause'];
  d.limits.maxNodeActionsPerClusterPerHour = 1_000;
  return JSON.stringify(d);
}

/** The embedded-metric lines a read printed. */
const metricLines = (log: ReturnType<typeof vi.spyOn>) =>
  log.mock.calls
    .map((c: unknown[]) => String(c[0]))
    .filter((l: string) => l.includes(CONFIG_INTEGRITY_MISMATCH))
    .map((l: string) => JSON.parse(l));

describe('configuration integrity: the pinned version or observe-only', { timeout: 60_000 }, () => {
  const reader = roleOfHandler(template, 'decide');

  it('the document the deployment stored is read as it is, without a metric', async () => {
    const table = await freshIncidentTable(template);
    const authz = new TemplateAuthorizer(template);
    const at = await deployConfig(template, table, authz);
    const log = vi.spyOn(console, 'log');
    const config = await loadConfigAs(reader, at, table, authz);
    expect(at.version).toBe(configVersion(configResourceOf(template).Document));
    expect(config.modes['sandbox-image']).not.toBe('observe');
    expect(metricLines(log)).toEqual([]);
  });

  it('a document rewritten under the pinned key (every class auto) is read observe-only, and counted', async () => {
    const table = await freshIncidentTable(template);
    const authz = new TemplateAuthorizer(template);
    const at = await deployConfig(template, table, authz);
    const stored = await table.get(configKey(at.version));
    // An operator with table write (or a role that could write it) puts another document under the version.
    await table.put({ ...stored, ...configKey(at.version), document: tamper(String(stored?.document)) });
    const log = vi.spyOn(console, 'log');
    const config = await loadConfigAs(reader, at, table, authz);
    expect(new Set(Object.values(config.modes))).toEqual(new Set(['observe']));
    expect(Object.keys(config.modes).sort()).toEqual([...FAILURE_CLASSES].sort());
    expect(new Set(Object.values(config.remedies))).toEqual(new Set(['dry-run']));
    expect(config.trustedSandboxImages).toBeUndefined();
    expect(config.limits.maxNodeActionsPerClusterPerHour).toBe(0);
    const [line] = metricLines(log);
    expect(line).toMatchObject({
      [CONFIG_INTEGRITY_MISMATCH]: 1,
      service: 'pod-doctor',
      _aws: { CloudWatchMetrics: [{ Namespace: 'PodDoctor', Metrics: [{ Name: CONFIG_INTEGRITY_MISMATCH }] }] },
    });
  });

  it('the stack alarms on the metric and notifies the topic', () => {
    const alarms = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties?.MetricName === CONFIG_INTEGRITY_MISMATCH,
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0].Properties).toMatchObject({
      Namespace: 'PodDoctor',
      Dimensions: [{ Name: 'service', Value: 'pod-doctor' }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(JSON.stringify(alarms[0].Properties?.AlarmActions)).toContain(':sns:');
  });
});
