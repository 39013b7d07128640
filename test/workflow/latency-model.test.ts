import { beforeAll, describe, expect, it } from 'vitest';
import { modelLatency, OLD_P50_SECONDS, POLLED_P50_SECONDS, pausePath } from '../../bench/latency.js';
import { COMPONENTS } from '../../bench/latency-model.js';
import { synthesizedDefinition } from '../../local/local-workflow.js';

type Definition = { StartAt: string; States: Record<string, { Next?: string; Type: string }> };

/** The synthesized definition with a Wait state inserted after `after`. */
function withWait(definition: Record<string, unknown>, after: string, seconds: number): Record<string, unknown> {
  const d = structuredClone(definition) as Definition;
  const state = d.States[after];
  if (!state?.Next) throw new Error(`${after} has no Next`);
  d.States['Added wait'] = { Type: 'Wait', Seconds: seconds, Next: state.Next } as never;
  state.Next = 'Added wait';
  return d as unknown as Record<string, unknown>;
}

// Runs the synthesized state machine locally (and a local HTTPS Kubernetes API) to get the path.
describe('latency model over the synthesized workflow (pause image, first log line → verified)', {
  timeout: 120_000,
}, () => {
  let definition: Record<string, unknown>;
  let visited: string[];
  beforeAll(async () => {
    definition = synthesizedDefinition();
    visited = await pausePath(definition, true);
  });

  it('walks the path the execution took: Watch pods start, no fixed window, no poll waits (completion events)', () => {
    const m = modelLatency(definition, visited, { samples: 2_000 });
    expect(m.median.entered).toContain('Watch pods start');
    expect(m.median.entered).not.toContain('Wait verification window');
    expect(m.median.entered).toEqual(
      expect.arrayContaining(['Inspect cluster', 'Act: request', 'Door: await command', 'Check repair']),
    );
    expect(m.median.entered).not.toContain('Door: wait');
    expect(m.median.waited).toBe(0);
    expect(m.p50).toBeLessThan(POLLED_P50_SECONDS);
    expect(m.p90).toBeGreaterThan(m.p50);
  });

  it("an await ends when the command's status-change event arrives, not before the command is done", () => {
    const late = { ...COMPONENTS, statusEvent: { ...COMPONENTS.statusEvent, p50: 20, p90: 20.001 } };
    const base = modelLatency(definition, visited, { samples: 200 }).median.verifiedAt;
    const slow = modelLatency(definition, visited, { samples: 200, components: late }).median.verifiedAt;
    // The probe and the verification probe each wait ~19.5 s more for their event; the repair's later event
    // overlaps the kubelet's retry (the pods start meanwhile), so it adds less.
    expect(slow - base).toBeGreaterThan(2 * 19 + 5);
    expect(slow - base).toBeLessThan(3 * 20);
  });

  it('counts every second a Wait state added to the definition puts on the path', async () => {
    const before = modelLatency(definition, visited, { samples: 200 }).median.verifiedAt;
    const slower = withWait(definition, 'Decide', 30);
    const path = await pausePath(slower, true);
    expect(path).toContain('Added wait');
    const after = modelLatency(slower, path, { samples: 200 }).median.verifiedAt;
    expect(after - before).toBeCloseTo(30.03, 2); // the Wait's seconds + one state transition
  });

  it('models the fixed 120 s window (no cluster access) near the issue’s ~151 s', async () => {
    const fixed = await pausePath(definition, false);
    expect(fixed).toContain('Wait verification window');
    const m = modelLatency(definition, fixed, { samples: 2_000 });
    expect(m.p50).toBeGreaterThan(120);
    expect(Math.abs(m.p50 - OLD_P50_SECONDS)).toBeLessThan(15);
  });
});
