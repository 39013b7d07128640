import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { classifyCloudTrail, isCloudTrailEvent } from '../lambdas/core/cloudtrail/cloudtrail.js';
import { classify, quickUnknown } from '../lambdas/core/detect/classifier.js';

const UNKNOWN_JSON = '{"class":"unknown"}';
/** The result of a line that matches no signature (shared: never modified). */
const UNKNOWN: Readonly<Record<string, unknown>> = Object.freeze({ class: 'unknown' });

/** Lines the CloudTrail classifier is tried on first: JSON objects that look like EventBridge events. */
function mayBeCloudTrail(line: string): boolean {
  let i = 0;
  while (i < line.length && line.charCodeAt(i) <= 32) i++;
  if (line.charCodeAt(i) !== 123) return false;
  return line.startsWith('{"version"', i) || line.includes('"AWS API Call via CloudTrail"');
}

/**
 * One output object for one input line, through the full reader and catalogue. Never throws.
 * `cloudTrail`: whether the line may be an EventBridge CloudTrail event ({@link mayBeCloudTrail}).
 */
export function classifyLine(line: string, cloudTrail = mayBeCloudTrail(line)): Readonly<Record<string, unknown>> {
  try {
    if (cloudTrail) {
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
  if (c.class === 'unknown') return UNKNOWN;
  return { class: c.class, cause: c.cause, signature: c.signature, entities: c.entities, format: c.format };
}

/** The JSON text of one input line's result (without the newline). */
export function classifyToJson(input: string): string {
  const line = input.charCodeAt(input.length - 1) === 13 ? input.slice(0, -1) : input;
  const cloudTrail = mayBeCloudTrail(line);
  if (!cloudTrail) {
    const quick = quickUnknown(line);
    if (quick?.error) return JSON.stringify({ class: 'unknown', error: quick.error, format: quick.format });
    if (quick) return UNKNOWN_JSON;
  }
  const result = classifyLine(line, cloudTrail);
  return result === UNKNOWN ? UNKNOWN_JSON : JSON.stringify(result);
}

/**
 * Splits chunks into lines and classifies them; a line may span chunks. Output is one string per
 * chunk (a batch), so the writer makes one write call per chunk, not one per line. Lines are cut at
 * each newline in place (indexOf and slice); only a line cut by the chunk's end is carried over.
 */
export class LineBatcher {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';

  /** The results of every line completed by this chunk, newline-terminated ('' when none). */
  push(chunk: Buffer): string {
    const text = this.decoder.write(chunk);
    let end = text.indexOf('\n');
    if (end < 0) {
      this.rest += text;
      return '';
    }
    let out = `${classifyToJson(this.rest + text.slice(0, end))}\n`;
    let start = end + 1;
    for (end = text.indexOf('\n', start); end >= 0; end = text.indexOf('\n', start)) {
      out += `${classifyToJson(text.slice(start, end))}\n`;
      start = end + 1;
    }
    this.rest = text.slice(start);
    return out;
  }

  /** The result of the last line when the input does not end with a newline. */
  end(): string {
    const last = this.rest + this.decoder.end();
    this.rest = '';
    return last.length > 0 ? `${classifyToJson(last)}\n` : '';
  }
}

/** `pod-doctor classify`: stdin to stdout (it takes no arguments; cli/commands.ts holds its help). */
export async function runClassifyCommand(): Promise<number> {
  const batcher = new LineBatcher();
  const out = process.stdout;
  for await (const chunk of process.stdin) {
    const batch = batcher.push(chunk as Buffer);
    if (batch.length > 0 && !out.write(batch)) await once(out, 'drain');
  }
  const last = batcher.end();
  if (last.length > 0) out.write(last);
  return 0;
}
