/**
 * One event through an EventBridge rule target, delivered as EventBridge does under the target's
 * RetryPolicy from the synthesized template: a 5xx, a 429 or no answer is retried with exponential
 * back-off and jitter until MaximumRetryAttempts or MaximumEventAgeInSeconds, whichever comes first,
 * then the event goes to the target's DeadLetterConfig queue (dropped without one); any other 4xx is
 * not retried.
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-retry-policy.html ("retries sending
 * the event for 24 hours and up to 185 times with an exponential back off and jitter")
 * https://repost.aws/knowledge-center/eventbridge-resolve-failedinvocation-errors ("EventBridge retries
 * responses sent with a 5xx or 429 HTTP status code for up to 24 hours. EventBridge doesn't retry
 * other 4xx HTTP errors.")
 * The back-off's numbers are not published: full jitter (a random wait up to 1 s × 2^attempt, at most
 * 15 minutes) makes the default 185 attempts last about the documented 24 hours.
 */

export interface TargetRetry {
  readonly maxAttempts: number;
  readonly maxAgeSeconds: number;
  /** The dead-letter queue (its ARN as the template writes it), if the target has one. */
  readonly deadLetter?: unknown;
}

/** A target's retry policy as the template sets it (EventBridge's defaults where it does not). */
export function retryOf(target: {
  readonly RetryPolicy?: { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number };
  readonly DeadLetterConfig?: { Arn?: unknown };
}): TargetRetry {
  return {
    maxAttempts: target.RetryPolicy?.MaximumRetryAttempts ?? 185,
    maxAgeSeconds: target.RetryPolicy?.MaximumEventAgeInSeconds ?? 86_400,
    deadLetter: target.DeadLetterConfig?.Arn,
  };
}

export interface Delivery {
  /** When the endpoint took it (epoch ms), if it did. */
  readonly deliveredAt?: number;
  /** Calls made to the endpoint (the first and the retries). */
  readonly calls: number;
  readonly deadLettered: boolean;
  readonly dropped: boolean;
}

const BASE_MS = 1_000;
const CAP_MS = 15 * 60_000;
const retriable = (status: number | undefined) => status === undefined || status === 429 || status >= 500;

/**
 * Delivers one event put at `start` to `send` (the endpoint's status at a time; undefined: no answer).
 * `random` is the jitter's source (tests pass a seeded one).
 */
export async function deliver(
  retry: TargetRetry,
  send: (at: number) => Promise<number | undefined>,
  o: { readonly start: number; readonly random: () => number },
): Promise<Delivery> {
  let at = o.start;
  for (let call = 1; ; call++) {
    const status = await send(at);
    if (status !== undefined && status >= 200 && status < 300) return { deliveredAt: at, calls: call, ...kept(false) };
    const wait = o.random() * Math.min(CAP_MS, BASE_MS * 2 ** call);
    const tooOld = at + wait - o.start > retry.maxAgeSeconds * 1000;
    if (!retriable(status) || call > retry.maxAttempts || tooOld) return { calls: call, ...kept(true, retry) };
    at += wait;
  }
}

const kept = (failed: boolean, retry?: TargetRetry) => ({
  deadLettered: failed && retry?.deadLetter !== undefined,
  dropped: failed && retry?.deadLetter === undefined,
});
