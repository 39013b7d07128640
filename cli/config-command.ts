import { readFileSync } from 'node:fs';
import { CONFIG_CONTEXT_KEY, ConfigError, parseConfig } from '../lib/config.js';
import type { ParsedArgs } from './args.js';

/** `pod-doctor config [FILE]` on parsed arguments (cli/commands.ts holds its help). */
export async function runConfigCommand({ positionals }: ParsedArgs): Promise<number> {
  const file = positionals[0] ?? 'cdk.json';
  let raw: unknown;
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    raw =
      json.context && typeof json.context === 'object'
        ? (json.context as Record<string, unknown>)[CONFIG_CONTEXT_KEY]
        : json;
  } catch (e) {
    process.stderr.write(`pod-doctor config: cannot read ${file}: ${(e as Error).message}\n`);
    return 1;
  }
  try {
    process.stdout.write(`${JSON.stringify(parseConfig(raw), null, 2)}\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return 1;
  }
}
