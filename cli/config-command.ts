import { readFileSync } from 'node:fs';
import { CONFIG_CONTEXT_KEY, ConfigError, parseConfig } from '../lib/config.js';

const HELP = `Usage: pod-doctor config [FILE]

Validates the pod-doctor configuration and prints it with every default filled in.
FILE is a cdk.json (the "${CONFIG_CONTEXT_KEY}" context key is read) or a JSON file holding the
configuration itself. Default: ./cdk.json. Exit code 1 names each bad key.`;

export async function runConfigCommand(args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const file = args[0] ?? 'cdk.json';
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
