import { createInterface } from 'node:readline';
import { classify } from '../lambdas/core/classifier.js';
import { classifyCloudTrail, isCloudTrailEvent } from '../lambdas/core/cloudtrail.js';

const HELP = `Usage: pod-doctor classify < FILE

Reads records from stdin, one per line, and writes one JSON object per record to stdout, in order:
  {"class": "<failure class>", "cause": "...", "signature": "...", "entities": {...}, "format": "..."}
Records: raw kubelet / containerd journal lines, Container Insights dataplane JSON, ipamd JSON,
kubectl describe event rows, EventBridge CloudTrail events (one JSON per line).
A record that cannot be read yields {"class": "unknown", "error": "..."}; the command never aborts.`;

/** One output object for one input line. Never throws. */
export function classifyLine(line: string): Record<string, unknown> {
  try {
    if (line.trimStart().startsWith('{"version"') || line.includes('"AWS API Call via CloudTrail"')) {
      const event = JSON.parse(line) as unknown;
      if (isCloudTrailEvent(event)) {
        const c = classifyCloudTrail(event);
        return {
          class: c.class,
          cause: c.cause,
          kind: c.kind,
          entities: c.entities,
          actor: c.actor ?? null,
          format: 'cloudtrail',
        };
      }
    }
  } catch {
    // Not a CloudTrail event after all: the generic reader reports what is wrong with it.
  }
  const c = classify(line);
  if (c.error) return { class: 'unknown', error: c.error, format: c.format };
  return { class: c.class, cause: c.cause, signature: c.signature, entities: c.entities, format: c.format };
}

export async function runClassifyCommand(args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of rl) {
    if (!process.stdout.write(`${JSON.stringify(classifyLine(line))}\n`)) {
      await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
  }
  return 0;
}
