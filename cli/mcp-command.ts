import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CheckClients } from '../lambdas/aws/readers/account/check-input.js';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import type { McpDeps } from './mcp/server.js';

const HELP = `Usage: pod-doctor mcp [--table NAME --bucket NAME] [--region R] [--profile P]
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
          they run on the first incident question, which therefore takes a minute`;

/** Credentials from the standard chain, or an error that says how to provide them (as `pod-doctor diagnose` does). */
async function credentialsOrExplain(clients: CheckClients): Promise<void> {
  try {
    await clients.eks.config.credentials();
  } catch (e) {
    const { credentialsProblem } = await import('./diagnose-command.js');
    throw new McpSetupError(credentialsProblem(e, 'mcp') ?? (e as Error).message);
  }
}

/** A tool that needs a value the server was not started with says so (the server keeps running). */
export class McpSetupError extends Error {
  override readonly name = 'McpSetupError';
}

async function accountDeps(o: { table?: string; bucket?: string; region: string }, version: string): Promise<McpDeps> {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
  const { S3Client } = await import('@aws-sdk/client-s3');
  const { IncidentReader } = await import('./mcp/incident-reader.js');
  const { cliCheckClients } = await import('./account-clients.js');
  let reader: InstanceType<typeof IncidentReader> | undefined;
  const clients = cliCheckClients();
  const incidents = async () => {
    if (!o.table || !o.bucket)
      throw new McpSetupError(
        'start pod-doctor mcp with --table and --bucket (or POD_DOCTOR_TABLE, POD_DOCTOR_EVIDENCE_BUCKET)',
      );
    reader ??= new IncidentReader({
      ddb: DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 6 })),
      s3: new S3Client({ maxAttempts: 6 }),
      tableName: o.table,
      evidenceBucket: o.bucket,
    });
    return reader;
  };
  return {
    incidents,
    account: async () => {
      await credentialsOrExplain(clients);
      return clients;
    },
    requests: async () => {
      await credentialsOrExplain(clients);
      const { SFNClient } = await import('@aws-sdk/client-sfn');
      const { StepFunctionsRequester } = await import('./mcp/action-requests.js');
      return new StepFunctionsRequester({ sfn: new SFNClient({ maxAttempts: 6 }), incidents, now: () => new Date() });
    },
    region: o.region,
    version,
  };
}

export async function runMcpCommand(args: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (e) {
    process.stderr.write(`pod-doctor mcp: ${(e as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  if (values.profile) process.env.AWS_PROFILE = values.profile;
  const region =
    values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? (values.demo ? 'eu-west-1' : '');
  if (!region) {
    process.stderr.write('pod-doctor mcp: no region: pass --region or set AWS_REGION\n');
    return 2;
  }
  process.env.AWS_REGION = region;
  const deps = values.demo
    ? (await import('../demo/mcp-demo.js')).demoMcpDeps(version, positionals.length ? positionals : undefined)
    : await accountDeps(
        {
          table: values.table ?? process.env.POD_DOCTOR_TABLE,
          bucket: values.bucket ?? process.env.POD_DOCTOR_EVIDENCE_BUCKET,
          region,
        },
        version,
      );
  const { createMcpServer } = await import('./mcp/server.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = createMcpServer(deps);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  // Runs until the client goes away (closes the transport or our stdin).
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
  });
  await closed;
  await server.close();
  return 0;
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      table: { type: 'string' },
      bucket: { type: 'string' },
      region: { type: 'string' },
      profile: { type: 'string' },
      demo: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
