import { beforeAll, describe, expect, it } from 'vitest';
import { runStorm, type StormFigures } from '../../bench/storm.js';
import { freshIncidentTable } from '../../local/local-workflow.js';
import { type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';

/**
 * Load and faults: a storm across 500 pods and 50 nodes in one minute, delivered in
 * parallel and partly twice, through the deployed ingest code with IAM, dynalite and Step Functions'
 * StartExecution rules. `npm run bench` runs the same storm at 100,000 lines and prints the figures.
 */
let template: ResolvedTemplate;
let figures: StormFigures;

beforeAll(async () => {
  template = synthesizedTemplate();
  const table = await freshIncidentTable(template);
  figures = await runStorm(template, table, { lines: 20_000, pods: 500, nodes: 50, concurrency: 10 });
}, 240_000);

describe('a storm of matching lines', () => {
  it('starts exactly one workflow per (cluster, scope, class) in the window, however many lines and deliveries', () => {
    // 50 nodes whose pause image cannot be pulled, 5 workload images that do not exist.
    expect(figures.distinctIncidents).toBe(55);
    expect(figures.executions).toBe(figures.distinctIncidents);
  });

  it('duplicate deliveries and invocations racing on one incident never start a second execution', () => {
    expect(figures.duplicateDeliveries).toBeGreaterThan(0);
    // A joiner that saw no execution yet may ask again: Step Functions returns the same one.
    expect(figures.startCalls).toBeGreaterThanOrEqual(figures.executions);
    expect(figures.executions).toBe(figures.distinctIncidents);
  });

  it('writes to DynamoDB per incident and delivery, not per line', () => {
    expect(figures.rejected).toBe(0);
    expect(figures.writesPerLine).toBeLessThan(0.05);
  });
});
