import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import type { Finding } from '../../core/findings.js';
import { type CheckClients, type CheckGroup, type GroupRunner, parseCheckInput } from './check-input.js';

// No SDK client is imported here: each check handler passes the client classes it uses, so its
// bundle loads only those packages (test/infra/lean-bundles.test.ts holds every handler to that).

export const logger = new Logger();
export const tracer = new Tracer();
const metrics = new Metrics();

/** Throttling is retried by the SDK (standard mode, exponential backoff) before a check reports `error`. */
export const CLIENT_OPTIONS = { maxAttempts: 6 } as const;

/** A traced SDK client with pod-doctor's retry settings (`region` for clients of another region). */
export function sdkClient<C>(Client: new (config: { maxAttempts: number; region?: string }) => C, region?: string): C {
  return tracer.captureAWSv3Client(new Client(region ? { ...CLIENT_OPTIONS, region } : CLIENT_OPTIONS));
}

/** One client per region, created on first use and reused for the life of the execution environment. */
export function perRegion<C>(create: (region: string) => C): (region: string) => C {
  const clients = new Map<string, C>();
  return (region) => {
    let c = clients.get(region);
    if (!c) {
      c = create(region);
      clients.set(region, c);
    }
    return c;
  };
}

/** A Lambda handler for one check group: parse → run the group's checks → findings (and a metric each). */
export function checkHandler<K extends keyof CheckClients>(
  group: CheckGroup,
  run: GroupRunner<K>,
  clients: Pick<CheckClients, K>,
  now: () => Date = () => new Date(),
) {
  return async (event: unknown): Promise<{ group: CheckGroup; findings: Finding[] }> => {
    const input = parseCheckInput(event);
    const findings = await run(input, clients, now());
    for (const f of findings) {
      const m = metrics.singleMetric();
      m.addDimension('status', f.status);
      m.addMetric('CheckFindings', MetricUnit.Count, 1);
    }
    logger.info('checks done', { group, findings: findings.map((f) => ({ id: f.id, status: f.status })) });
    return { group, findings };
  };
}
