/** One CLI subcommand. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: readonly string[]): Promise<number>;
}

/** Subcommands, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: 'classify',
    summary: 'classify log lines / CloudTrail events from stdin, one JSON result per line',
    run: async (args) => (await import('./classify-command.js')).runClassifyCommand(args),
  },
  {
    name: 'demo',
    summary: 'run the seed failure scenarios end to end on this machine (no AWS account)',
    run: async (args) => (await import('./demo-command.js')).runDemoCommand(args),
  },
  {
    name: 'diagnose',
    summary: 'run the account checks read-only against a real account (standard credential chain)',
    run: async (args) => (await import('./diagnose-command.js')).runDiagnoseCommand(args),
  },
  {
    name: 'mcp',
    summary: 'an MCP server on stdio (AWS DevOps Agent, IDEs): incidents, read-only diagnosis, classification',
    run: async (args) => (await import('./mcp-command.js')).runMcpCommand(args),
  },
  {
    name: 'preflight',
    summary: 'read-only account checks before deploying: trail, log group, SSM agent, node tags, endpoints',
    run: async (args) => (await import('./preflight-command.js')).runPreflightCommand(args),
  },
  {
    name: 'replay',
    summary: 'feed a saved EventBridge event, subscription payload or log lines through the local pipeline',
    run: async (args) => (await import('./replay-command.js')).runReplayCommand(args),
  },
  {
    name: 'config',
    summary: 'validate a pod-doctor configuration (JSON file or cdk.json) and print it with defaults',
    run: async (args) => (await import('./config-command.js')).runConfigCommand(args),
  },
];
