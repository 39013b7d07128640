import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Finding } from '../../core/contract/findings.js';
import {
  type CheckClients,
  type CheckGroup,
  type CheckInput,
  CheckInputError,
  checkInputSchema,
  type GroupRunner,
  groupApplies,
  parseCheckInput,
} from '../readers/account/check-input.js';
import { logger, metrics, tracer, withPowertools } from '../runtime/powertools.js';
import { subnetGauges } from './subnet-gauges.js';

// No SDK client is imported here: each check handler passes the client classes it uses, so its
// bundle loads only those packages (test/infra/lean-bundles.test.ts holds every handler to that).

export { logger, tracer };

/** One check group on parsed input: its checks → findings (and a metric each). */
function runGroup<K extends keyof CheckClients>(
  group: CheckGroup,
  run: GroupRunner<K>,
  clients: Pick<CheckClients, K>,
  now: () => Date,
) {
  return async (input: CheckInput): Promise<{ group: CheckGroup; findings: Finding[] }> => {
    if (!groupApplies(group, input)) return { group, findings: [] };
    const findings = await run(input, clients, now());
    for (const f of findings) {
      const m = metrics.singleMetric();
      m.addDimension('status', f.status);
      m.addMetric('CheckFindings', MetricUnit.Count, 1);
    }
    for (const g of subnetGauges(findings)) {
      const m = metrics.singleMetric();
      m.addDimension('subnet', g.subnet);
      m.addMetric(g.metric, MetricUnit.Count, g.value);
    }
    logger.info('checks done', { group, findings: findings.map((f) => ({ id: f.id, status: f.status })) });
    return { group, findings };
  };
}

/**
 * The Lambda handler of one check group (`createHandler` of lambdas/handlers/check-*.ts): Powertools
 * middleware, the check input schema, CheckInputError for an event it refuses.
 */
export function createCheckHandler<K extends keyof CheckClients>(
  group: CheckGroup,
  run: GroupRunner<K>,
  clients: Pick<CheckClients, K>,
  now: () => Date = () => new Date(),
) {
  return withPowertools(checkInputSchema, runGroup(group, run, clients, now), {
    invalid: (message) => new CheckInputError(message),
  });
}

/** One check group as a plain function of the raw input (the local runtime and the CLI call it in-process). */
export function checkHandler<K extends keyof CheckClients>(
  group: CheckGroup,
  run: GroupRunner<K>,
  clients: Pick<CheckClients, K>,
  now: () => Date = () => new Date(),
) {
  const r = runGroup(group, run, clients, now);
  return async (event: unknown) => r(parseCheckInput(event));
}
