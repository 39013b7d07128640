import { beforeAll, describe, expect, it } from 'vitest';
import { clustersAtLimit, LIMITS, measureScale, type ScaleFigures } from '../support/scale-figures.js';

/**
 * One PodDoctor stack at 50, 100 and 200 clusters, each with remediation targets, a node role, a log
 * group and the Kubernetes API (the deploy-limits acceptance configuration), synthesized as `cdk
 * deploy` does. Measures every template and role, checks what must hold at every size, and states,
 * from the measured growth per cluster, at how many clusters each limit breaks and which comes first.
 */
const SIZES = [50, 100, 200] as const;
/** Step Functions' limit on a state machine definition (characters). */
const STATE_MACHINE_DEFINITION_LIMIT = 1_048_576;

let figures: ScaleFigures[];
const at = (n: number) => figures.find((f) => f.clusters === n) as ScaleFigures;
const parent = (f: ScaleFigures) => f.templates.find((t) => t.file === 'PodDoctor.template.json');
const roleName = (key: string) => /"Ref":"([^"]+)"/.exec(key)?.[1] ?? key;

/** Per limit, the cluster count at which one stack first exceeds it (linear in clusters over 50..200). */
function breakPoints(): { limit: string; clusters: number }[] {
  const series = (value: (f: ScaleFigures) => number) =>
    figures.map((f) => ({ clusters: f.clusters, value: value(f) }));
  const door = (f: ScaleFigures) => f.roles.find((r) => roleName(r.role).includes('DoorFunctionLogsRole'));
  return [
    {
      limit: 'CloudFormation: 500 resources in the stack',
      value: (f: ScaleFigures) => parent(f)?.resources ?? 0,
      max: LIMITS.resources,
    },
    {
      limit: 'CloudFormation: 1 MB template',
      value: (f: ScaleFigures) => parent(f)?.bytes ?? 0,
      max: LIMITS.templateBytes,
    },
    {
      limit: 'IAM: 10 managed policies on the door’s role (default quota)',
      value: (f: ScaleFigures) => door(f)?.managedPolicies ?? 0,
      max: LIMITS.managedPoliciesPerRole,
    },
    {
      limit: 'IAM: 20 managed policies on the door’s role (the quota raised to its maximum)',
      value: (f: ScaleFigures) => door(f)?.managedPolicies ?? 0,
      max: 20,
    },
    {
      limit: 'IAM: 10 managed policies on any other role (default quota)',
      value: (f: ScaleFigures) => Math.max(...f.roles.filter((r) => r !== door(f)).map((r) => r.managedPolicies)),
      max: LIMITS.managedPoliciesPerRole,
    },
  ]
    .map(({ limit, value, max }) => ({ limit, clusters: clustersAtLimit(series(value), max) }))
    .sort((a, b) => a.clusters - b.clusters);
}

describe('one stack at 50, 100 and 200 clusters', () => {
  beforeAll(() => {
    figures = SIZES.map(measureScale);
    for (const f of figures) {
      const roles = [...f.roles].sort((a, b) => b.totalChars - a.totalChars).slice(0, 3);
      console.info(
        `${f.clusters} clusters: synth ${f.synthMs} ms; ${f.templates
          .map(
            (t) => `${t.file} ${t.resources} resources, ${t.bytes} B, ${t.parameters} parameters, ${t.outputs} outputs`,
          )
          .join(
            '; ',
          )}; largest environment ${f.largestEnvironmentBytes} B; state machine ${f.stateMachineChars} chars; ` +
          `roles: ${roles.map((r) => `${roleName(r.role)} inline ${r.inlineChars} + ${r.managedPolicies} managed (largest ${r.largestManagedChars}), ${r.totalChars} in all`).join('; ')}`,
      );
    }
  }, 600_000);

  it('every function environment stays under 4 KB and the same at every size (the cluster list lives in the config store)', () => {
    for (const f of figures) expect(f.largestEnvironmentBytes).toBeLessThan(LIMITS.environmentBytes);
    expect(new Set(figures.map((f) => f.largestEnvironmentBytes)).size).toBe(1);
  });

  it('the state machine definition does not grow with clusters and stays far under Step Functions’ 1 MB', () => {
    expect(new Set(figures.map((f) => f.stateMachineChars)).size).toBe(1);
    expect(at(200).stateMachineChars).toBeLessThan(STATE_MACHINE_DEFINITION_LIMIT / 10);
  });

  it('no role’s policy passes IAM’s sizes at any size: 10,240 inline characters, 6,144 per managed policy (statements are kept to 10 resources, which the CDK spreads over managed policies)', () => {
    for (const f of figures) {
      const over = f.roles
        .filter((r) => r.inlineChars > LIMITS.roleInlineChars || r.largestManagedChars > LIMITS.managedPolicyChars)
        .map((r) => `${roleName(r.role)} ${r.inlineChars} inline, largest managed ${r.largestManagedChars}`);
      expect(over, `${f.clusters} clusters`).toEqual([]);
    }
    expect(Math.max(...at(200).roles.map((r) => r.managedPolicies))).toBeGreaterThan(0);
  });

  it('at 50 clusters one stack deploys: under 500 resources and 1 MB, no role over IAM’s default 10 managed policies', () => {
    const t = parent(at(50));
    expect(t?.resources).toBeLessThan(LIMITS.resources);
    expect(t?.bytes).toBeLessThan(LIMITS.templateBytes);
    for (const r of at(50).roles)
      expect(r.managedPolicies, roleName(r.role)).toBeLessThanOrEqual(LIMITS.managedPoliciesPerRole);
    for (const other of at(200).templates.filter((x) => x !== parent(at(200)))) {
      expect(other.resources, other.file).toBeLessThan(LIMITS.resources);
    }
  });

  it('grows by 6 to 7 resources per cluster (4 access entries: the Kubernetes function, the door, the sweep, the events reader; a subscription filter, its invoke permission, managed policies; one log-group check for all)', () => {
    const perCluster = ((parent(at(200))?.resources ?? 0) - (parent(at(50))?.resources ?? 0)) / 150;
    expect(perCluster).toBeGreaterThanOrEqual(6);
    expect(perCluster).toBeLessThan(7);
  });

  it('states the next limits: the door role’s 10 managed policies just past 50 clusters, then 500 resources and 1 MB', () => {
    const points = breakPoints();
    console.info(
      `limits of one stack, first first:\n${points.map((p) => `  ~${p.clusters} clusters: ${p.limit}`).join('\n')}`,
    );
    const when = (prefix: string) => points.find((p) => p.limit.startsWith(prefix))?.clusters ?? 0;
    // Every limit holds at the acceptance size; the first breaks within 10 clusters of it.
    expect(points[0].clusters).toBeGreaterThan(50);
    expect(points[0].clusters).toBeLessThanOrEqual(60);
    expect(points[0].limit).toMatch(/^IAM: 10 managed policies on the door/);
    // CloudFormation: 500 resources (measured ~54) before 1 MB (measured ~60), both below 100.
    expect(when('CloudFormation: 500')).toBeGreaterThan(50);
    expect(when('CloudFormation: 500')).toBeLessThan(when('CloudFormation: 1 MB'));
    expect(when('CloudFormation: 1 MB')).toBeLessThanOrEqual(100);
    // Raising the door role's quota to 20 does not reach 200 clusters: its policies grow ~1 KB per cluster.
    expect(when('IAM: 20 managed policies')).toBeLessThan(200);
  });
});
