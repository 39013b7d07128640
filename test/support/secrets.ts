import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/** One shape of secret inside a log line, the secret values it carries and where the shape comes from. */
export interface SecretLine {
  readonly kind: string;
  readonly line: string;
  /** Every string that must not survive redaction. */
  readonly secrets: readonly string[];
  readonly source: string;
  readonly note: string;
}

/** test/fixtures/secrets/secrets.jsonl: secret shapes from public documentation examples, in real line shapes. */
export function secretCorpus(): SecretLine[] {
  return readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'secrets', 'secrets.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SecretLine);
}

/** The secrets of `lines` found in `text` (each reported by its first 24 characters). */
export function leakedIn(text: string, lines: readonly SecretLine[]): string[] {
  return lines.flatMap((l) => l.secrets.filter((s) => text.includes(s)).map((s) => `${l.kind}: ${s.slice(0, 24)}…`));
}
