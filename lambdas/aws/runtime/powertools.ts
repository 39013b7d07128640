import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Context } from 'aws-lambda';

// The one Powertools set-up of every Lambda function: one Logger, Metrics and Tracer per execution
// environment (service name and namespace from POWERTOOLS_* variables), and the middleware each
// handler runs under (functional handlers use Middy, as the Powertools READMEs recommend).

export const logger = new Logger();
export const metrics = new Metrics();
export const tracer = new Tracer();

/** Thrown when an event does not match its handler's schema (unless the handler names its own error). */
export class EventParseError extends Error {
  override readonly name = 'EventParseError';
}

type Output<S extends StandardSchemaV1> = StandardSchemaV1.InferOutput<S>;

/** A Lambda function handler: the raw event (parsed inside) and the invocation context. */
export type LambdaHandler<R> = (event: unknown, context: Context) => Promise<R>;

export interface PowertoolsOptions {
  /** The domain's own error for an invalid event (the workflow reports it by name). @default EventParseError */
  readonly invalid?: (message: string) => Error;
  /**
   * The handler adds metrics to the shared `metrics` buffer (`metrics.addMetric`): Powertools'
   * `logMetrics` publishes it after each invocation. Without: nothing is buffered, so nothing is
   * flushed (a flush of an empty buffer logs "No application metrics to publish" each time);
   * `metrics.singleMetric()` metrics publish themselves. The ColdStart metric is captured either way.
   * @default false
   */
  readonly storedMetrics?: boolean;
}

/** A handler added metrics to the shared buffer without `storedMetrics: true`: they would never be published. */
export class UnpublishedMetricsError extends Error {
  override readonly name = 'UnpublishedMetricsError';
}

const UNPUBLISHED = 'metrics added to the shared buffer without storedMetrics: true';

/** The ColdStart metric (published at once, as `logMetrics` does with `captureColdStartMetric`), no flush. */
function coldStartMetric(): middy.MiddlewareObj<unknown, unknown, Error, Context> {
  return {
    before: (request) => {
      metrics.captureColdStartMetric(request.context.functionName);
    },
    after: () => {
      if (metrics.hasStoredMetrics()) throw new UnpublishedMetricsError(UNPUBLISHED);
    },
    // A failing invocation keeps its error: what it buffered is published (not carried into the next one).
    onError: () => {
      if (!metrics.hasStoredMetrics()) return;
      logger.error(UNPUBLISHED, new UnpublishedMetricsError(UNPUBLISHED));
      metrics.publishStoredMetrics();
    },
  };
}

/** `path: message` of each issue, as the domain's parse errors read. */
export function issuesText(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .map((i) => {
      const path = (i.path ?? []).map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.');
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
}

/**
 * A handler under Powertools: the event parsed with `schema` (Powertools Parser), the Lambda context
 * in every log line, the ColdStart metric, buffered metrics flushed after each invocation
 * (`storedMetrics`), the invocation traced. An event the schema refuses throws `options.invalid` (EventParseError by default).
 */
export function withPowertools<S extends StandardSchemaV1, R>(
  schema: S,
  handler: (event: Output<S>, context: Context) => Promise<R>,
  options: PowertoolsOptions = {},
): LambdaHandler<R> {
  const invalid = options.invalid ?? ((m: string) => new EventParseError(m));
  return middy<unknown, R, Error, Context>()
    .use(captureLambdaHandler(tracer))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(options.storedMetrics ? logMetrics(metrics, { captureColdStartMetric: true }) : coldStartMetric())
    .use(parser({ schema, safeParse: true }))
    .handler(async (event, context) => {
      const parsed = event as { success: true; data: Output<S> } | { success: false; error: Error };
      if (!parsed.success) {
        const cause = (parsed.error as { cause?: unknown }).cause;
        throw invalid(Array.isArray(cause) ? issuesText(cause) : parsed.error.message);
      }
      return handler(parsed.data, context);
    }) as LambdaHandler<R>;
}
