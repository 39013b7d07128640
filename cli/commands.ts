import type { ArgsSpec, ParsedArgs } from './args.js';

/**
 * One CLI subcommand: what `--help` prints and what the parser accepts live here, so help and
 * argument errors answer without importing the command's implementation (which loads the AWS SDK,
 * the classifier or the local runtime); `run` imports it after the arguments parsed.
 */
export interface Command {
  readonly name: string;
  readonly summary: string;
  /** The full `pod-doctor <name> --help` text. */
  readonly help: string;
  readonly args: ArgsSpec;
  /** Runs only from a checkout of the repository (the local runtime is not in the published package). */
  readonly checkout?: boolean;
  /** A usage problem the parser cannot see (a required option, options that go together), or undefined. */
  readonly check?: (args: ParsedArgs) => string | undefined;
  /** Runs the command on parsed arguments; resolves to the process exit code. */
  run(args: ParsedArgs): Promise<number>;
}

const help = { type: 'boolean', short: 'h' } as const;
const account = {
  region: { type: 'string' },
  profile: { type: 'string' },
} as const;
const REGION_HELP = `--region   the Region (default: the SDK's chain: AWS_REGION, then the profile's region in ~/.aws/config)
--profile  a profile of ~/.aws/config (default: AWS_PROFILE)`;

const CLASSIFY_HELP = `Usage: pod-doctor classify < FILE

Reads records from stdin, one per line, and writes one JSON object per record to stdout, in order:
  {"class": "<failure class>", "cause": "...", "signature": "...", "entities": {...}, "format": "..."}
Records: raw kubelet / containerd journal lines, Container Insights dataplane JSON, ipamd JSON,
kubectl describe event rows, EventBridge CloudTrail events (one JSON per line).
A record that matches no signature yields {"class": "unknown"}; one that cannot be read
{"class": "unknown", "error": "...", "format": "..."}; the command never aborts.
Input is read in chunks and output written in batches; lines no signature can match are answered
by the catalogue's pre-filter without being parsed.`;

const DEMO_HELP = `Usage: pod-doctor demo (--all | SCENARIO...) [--json] [--html FILE] [--verbose]
       pod-doctor demo --list

Runs field failures through pod-doctor on this machine, without an AWS account: realistic node log
lines and CloudTrail events go through the real ingest path (classifier, aggregation, dedupe); each
incident runs through the state machine CDK synthesizes, executed locally with the real handlers, the
account checks answering from a recorded account; the pause-image scenarios run the real SSM
documents on a local containerd with a registry that answers 401 like ECR (when containerd is not
available they run on a simulated node, and say so). Runs from a checkout of the repository.

--all        every scenario
--list       the scenarios, one per line: name and title
--json       one JSON record per scenario: {scenario, class, signals, findings, actions, approval, outcome,
             notices: the chat card and the pagers' bodies pod-doctor would send,
             clusterEvents: the Kubernetes events it wrote, read back from the local API server}
--html FILE  a self-contained HTML report with a timeline per incident
--verbose    also the full e-mail, chat card, pages and Kubernetes events of every scenario

A line per scenario on stderr as it finishes; then the table and a one-line headline. The demo stack
is synthesized once and cached (node_modules/.cache/pod-doctor) until the code that shapes it changes.`;

const DIAGNOSE_HELP = `Usage: pod-doctor diagnose --cluster NAME [--node NAME|INSTANCE_ID] [--region R] [--profile P] [--image REF] [--json]

Runs pod-doctor's account checks, read-only, against a real account with the standard AWS credential
chain (environment, shared config and SSO via --profile/AWS_PROFILE, instance or container role).
With --node it resolves the node and runs every check group; without, the cluster-level ones.
A cluster the account does not have in the Region is an error (exit 1). Nothing is changed in the account.

${REGION_HELP}`;

const MCP_HELP = `Usage: pod-doctor mcp [--table NAME --bucket NAME] [--region R] [--profile P]
       pod-doctor mcp --demo [SCENARIO...]

A Model Context Protocol server on stdio (JSON-RPC on stdin/stdout) for AWS DevOps Agent, IDEs and
other MCP clients. Tools: list_incidents, get_incident (a deployment's incident table and evidence
bucket), diagnose (the read-only account checks of a cluster or node), classify_lines, explain_class,
and request_action: it asks pod-doctor to run an incident's workflow again (StartExecution on the
input of the incident's last run), in which every change waits for a human's approval through the
signed link pod-doctor e-mails; no tool approves. AWS access through the standard credential chain
(environment, --profile/AWS_PROFILE, SSO, instance or container role).

--table   the incident table (default: POD_DOCTOR_TABLE)
--bucket  the evidence bucket (default: POD_DOCTOR_EVIDENCE_BUCKET; stack output EvidenceBucketName)
--demo    no AWS account: serves the incidents of demo scenarios run on this machine and the
          recorded account the demo uses (default scenarios: pid-exhaustion, cni-policy-blocked-by-boundary);
          they run on the first incident question, which therefore takes a minute. From a checkout only.
${REGION_HELP}`;

const PREFLIGHT_HELP = `Usage: pod-doctor preflight --cluster NAME [--cluster NAME ...] [--region R] [--profile P] [--json]

Read-only checks of an account before deploying pod-doctor, with the standard AWS credential chain:
the cluster in the region, a CloudTrail trail logging in the region (EventBridge API-call events),
the Container Insights dataplane log group and its subscription filters (CloudWatch Logs allows 2),
ipamd logs shipped (AWS_VPC_K8S_CNI_LOG_FILE=stdout), the SSM agent on the nodes, the node tags
SendCommand requires, and the SSM VPC endpoints where nodes have no internet route. Then each detection
signal of each cluster: Kubernetes events readable, a kubelet line in the dataplane group and an aws-node
line in the application group in the last 24 h, a trail delivering CloudTrail events.
--json prints one line per cluster: {cluster, region, rows, signals}.
Nothing is changed in the account. Exit code 3 when a check fails.

${REGION_HELP}`;

const REPLAY_HELP = `Usage: pod-doctor replay FILE [--json]

Feeds a saved EventBridge event, a CloudWatch Logs subscription payload (as Lambda receives it, or
its decoded JSON) or raw log lines (one per line) through the local pipeline: the ingest path
(classifier, aggregation, dedupe) and, for each incident, the synthesized workflow with the real
handlers against the recorded demo account and a simulated node. Prints the incident summaries.
Runs from a checkout of the repository.`;

const CONFIG_HELP = `Usage: pod-doctor config [FILE]

Validates the pod-doctor configuration and prints it with every default filled in.
FILE is a cdk.json (the "pod-doctor" context key is read) or a JSON file holding the
configuration itself. Default: ./cdk.json. Exit code 1 names each bad key.`;

/** Subcommands, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: 'classify',
    summary: 'classify log lines / CloudTrail events from stdin, one JSON result per line',
    help: CLASSIFY_HELP,
    args: { options: { help } },
    run: async () => (await import('./classify-command.js')).runClassifyCommand(),
  },
  {
    name: 'demo',
    summary: 'run the seed failure scenarios end to end on this machine (no AWS account)',
    help: DEMO_HELP,
    args: {
      options: {
        all: { type: 'boolean' },
        list: { type: 'boolean' },
        json: { type: 'boolean' },
        html: { type: 'string' },
        verbose: { type: 'boolean' },
        help,
      },
      maxPositionals: Number.POSITIVE_INFINITY,
      positionalName: 'SCENARIO',
    },
    checkout: true,
    check: ({ values, positionals }) => {
      // `demo json`: an option without its dashes, told before the scenarios load.
      const flag = positionals.find((p) => ['all', 'list', 'json', 'html', 'verbose'].includes(p));
      if (flag) return `unknown scenario "${flag}" (did you mean --${flag}?)`;
      return values.all || values.list || positionals.length > 0
        ? undefined
        : 'name scenarios or pass --all (pod-doctor demo --list shows them)';
    },
    run: async (args) => (await import('./demo-command.js')).runDemoCommand(args),
  },
  {
    name: 'diagnose',
    summary: 'run the account checks read-only against a real account (standard credential chain)',
    help: DIAGNOSE_HELP,
    args: {
      options: {
        cluster: { type: 'string' },
        node: { type: 'string' },
        image: { type: 'string' },
        json: { type: 'boolean' },
        ...account,
        help,
      },
    },
    check: ({ values }) => (values.cluster ? undefined : '--cluster is required'),
    run: async (args) => (await import('./diagnose-command.js')).runDiagnoseCommand(args),
  },
  {
    name: 'mcp',
    summary: 'an MCP server on stdio (AWS DevOps Agent, IDEs): incidents, read-only diagnosis, classification',
    help: MCP_HELP,
    args: {
      options: { table: { type: 'string' }, bucket: { type: 'string' }, demo: { type: 'boolean' }, ...account, help },
      maxPositionals: Number.POSITIVE_INFINITY,
      positionalName: 'SCENARIO',
    },
    check: ({ values, positionals }) =>
      positionals.length > 0 && !values.demo
        ? `unexpected argument "${positionals[0]}": scenarios go with --demo`
        : undefined,
    run: async (args) => (await import('./mcp-command.js')).runMcpCommand(args),
  },
  {
    name: 'preflight',
    summary: 'read-only account checks before deploying: trail, log group, SSM agent, node tags, endpoints',
    help: PREFLIGHT_HELP,
    args: { options: { cluster: { type: 'string', multiple: true }, json: { type: 'boolean' }, ...account, help } },
    check: ({ values }) => (values.cluster ? undefined : '--cluster is required'),
    run: async (args) => (await import('./preflight-command.js')).runPreflightCommand(args),
  },
  {
    name: 'replay',
    summary: 'feed a saved EventBridge event, subscription payload or log lines through the local pipeline',
    help: REPLAY_HELP,
    args: {
      options: { json: { type: 'boolean' }, help },
      minPositionals: 1,
      maxPositionals: 1,
      positionalName: 'FILE',
    },
    checkout: true,
    run: async (args) => (await import('./replay-command.js')).runReplayCommand(args),
  },
  {
    name: 'config',
    summary: 'validate a pod-doctor configuration (JSON file or cdk.json) and print it with defaults',
    help: CONFIG_HELP,
    args: { options: { help }, maxPositionals: 1, positionalName: 'FILE' },
    run: async (args) => (await import('./config-command.js')).runConfigCommand(args),
  },
];
