#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closest, parseCommandArgs, UsageError, wantsHelp } from '../cli/args.js';
import { COMMANDS, type Command } from '../cli/commands.js';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';

// The AWS SDK for JavaScript v3 prints a 9-line NodeVersionSupportWarning on stderr at the first client
// it creates on Node < 22 ("versions published after the first week of January 2027 will require node
// >=22"). It speaks to whoever picks SDK versions, which here is pod-doctor, not its user: the package
// declares Node >= 20 (engines) and pins the SDK it was tested with (package-lock.json); its Lambda
// functions run on Node 22, where the SDK never warns. On the CLI the banner only alarmed people (MCP
// clients show the server's stderr as an error). The SDK's documented opt-out is this variable
// (aws/aws-sdk-js-v3#7983, read in @aws-sdk/core's emitWarningIfUnsupportedVersion); set it before any
// client exists, and only when the user has not chosen a value, so nothing else on stderr is filtered.
if (Number.parseInt(process.versions.node, 10) < 22)
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const NEEDS_CHECKOUT = COMMANDS.filter((c) => c.checkout).map((c) => c.name);

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'pod-doctor — finds and repairs why Amazon EKS pods never start',
    '',
    'Usage: pod-doctor <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c: Command) => `  ${c.name.padEnd(width)}  ${c.summary}${c.checkout ? ' (from a checkout)' : ''}`),
    '',
    'Options:',
    '  -h, --help     show this help (or a command’s: pod-doctor <command> --help)',
    '  -v, --version  print the version',
    '',
    `${NEEDS_CHECKOUT.join(' and ')} (and mcp --demo) run the local runtime, which the published package leaves out:`,
    'run them from a checkout of the repository (npm ci, then npm run demo).',
  ].join('\n');
}

function version(): string {
  return (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

async function runCommand(command: Command, args: readonly string[]): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(`${command.help}\n`);
    return 0;
  }
  let parsed: ReturnType<typeof parseCommandArgs>;
  try {
    parsed = parseCommandArgs(args, command.args);
    const problem = command.check?.(parsed);
    if (problem) throw new UsageError(problem);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`pod-doctor ${command.name}: ${e.message}\nUsage: see pod-doctor ${command.name} --help\n`);
    return 2;
  }
  try {
    return await command.run(parsed);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    // demo, replay and mcp --demo run the local runtime (local/, demo/ and their emulators, which are
    // development dependencies): the published package leaves them out, so they run from a checkout.
    process.stderr.write(
      `pod-doctor ${command.name}: ${(e as Error).message}\nThis command runs the local runtime, which the published package does not include: run it from a checkout of the repository (npm ci, npm run build, then node dist/bin/pod-doctor.js ${command.name}).\n`,
    );
    return 1;
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (name === '-v' || name === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const meant = closest(
      name,
      COMMANDS.map((c) => c.name),
    );
    process.stderr.write(
      `pod-doctor: unknown command "${name}"${meant ? ` (did you mean ${meant}?)` : ''}\n\n${usage()}\n`,
    );
    return 2;
  }
  return runCommand(command, rest);
}

process.exitCode = await main(process.argv.slice(2));
