import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How often a call that is still running tells the client so. @default 5 s */
export const PROGRESS_EVERY_MS = 5_000;

/**
 * Progress notifications for one tool call, while it runs: when the client sent a progress token,
 * every `everyMs` a `notifications/progress` with the seconds elapsed (it only grows, as the
 * protocol asks) and what the server is doing (`status`, e.g. which demo scenario runs). A client
 * that resets its request timeout on progress (the SDK's `resetTimeoutOnProgress`) then waits for a
 * call that takes minutes (the first call of `mcp --demo` runs the scenarios) instead of timing out
 * at 60 s. Returns the function that stops them.
 */
export function reportProgress(extra: ToolExtra, status: () => string, everyMs = PROGRESS_EVERY_MS): () => void {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return () => {};
  const started = Date.now();
  let last = 0;
  const timer = setInterval(() => {
    const progress = Math.max(last + 1, Math.round((Date.now() - started) / 1000));
    last = progress;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, message: `${status()} (${progress} s)` },
      })
      .catch(() => {
        // The client went away; the call's own answer will fail the same way.
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
