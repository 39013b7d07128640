/**
 * Faults a Task state raises, named as Step Functions reports them (`Lambda.TooManyRequestsException`,
 * `Ssm.ThrottlingException`, `SNS.ThrottledException`, a function's own error type …), so the
 * synthesized Retry and Catch decide what happens, as they would in AWS.
 */
export interface TaskFault {
  /** The error name Step Functions matches Retry/Catch `ErrorEquals` against. */
  readonly error: string;
  /** Fail this many attempts, then behave normally. @default every attempt */
  readonly times?: number;
  /** The error's message (a crash's own words). @default "<error> (injected, attempt n)" */
  readonly message?: string;
  /**
   * Only calls whose input matches (the door's Task runs every request: its slot picks one).
   * @default every call
   */
  readonly when?: (input: unknown) => boolean;
  /**
   * Raise it after the handler ran: what it did took effect, then the function failed (its last
   * write throttled past the SDK's retries, a timeout, a response lost). @default before it runs
   */
  readonly after?: boolean;
}

/** A fault for the door's Task on the calls of one slot (`evict`, `act` …). */
export const onSlot = (slot: string) => (input: unknown) =>
  (input as { door?: { call?: { slot?: string } } }).door?.call?.slot === slot;

export type TaskFaults = Readonly<Record<string, TaskFault>>;

type Handler = (input: never) => unknown;

/** Wraps the named Task handlers so they raise their fault; an unknown state name is a test error. */
export function injectTaskFaults(handlers: Record<string, Handler>, faults: TaskFaults | undefined): void {
  for (const [state, fault] of Object.entries(faults ?? {})) {
    const handler = handlers[state];
    if (!handler) throw new Error(`no Task state named "${state}" to inject ${fault.error} into`);
    let attempts = 0;
    const raise = (n: number) => {
      throw Object.assign(new Error(fault.message ?? `${fault.error} (injected, attempt ${n})`), { name: fault.error });
    };
    handlers[state] = ((input: never) => {
      if (fault.when && !fault.when(input)) return handler(input);
      const n = ++attempts;
      if (fault.times !== undefined && n > fault.times) return handler(input);
      if (!fault.after) return raise(n);
      return Promise.resolve(handler(input)).then(() => raise(n));
    }) as Handler;
  }
}
