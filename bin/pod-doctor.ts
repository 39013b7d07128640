#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, type Command } from '../cli/commands.js';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'pod-doctor — finds and repairs why Amazon EKS pods never start',
    '',
    'Usage: pod-doctor <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c: Command) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    '  -h, --help     show this help (or a command’s: pod-doctor <command> --help)',
    '  -v, --version  print the version',
  ].join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (name === '-v' || name === '--version') {
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`pod-doctor: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    // demo, replay and mcp --demo run the local runtime (local/, demo/ and their emulators, which are
    // development dependencies): the published package leaves them out, so they run from a checkout.
    process.stderr.write(
      `pod-doctor ${name}: ${(e as Error).message}\nThis command runs the local runtime, which the published package does not include: run it from a checkout of the repository (npm ci, npm run build, then node dist/bin/pod-doctor.js ${name}).\n`,
    );
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
