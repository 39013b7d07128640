import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckClients } from '../lambdas/aws/readers/account/check-input.js';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import type { ParsedArgs } from './args.js';
import type { McpDeps } from './mcp/server.js';
import { resolveAccountRegion } from './region.js';

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

/** `pod-doctor mcp` on parsed arguments (cli/commands.ts holds its help and options). */
export async function runMcpCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const v = values as { table?: string; bucket?: string; region?: string; profile?: string; demo?: boolean };
  const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  let region: string;
  try {
    region = await resolveAccountRegion('mcp', { ...v, region: v.region ?? (v.demo ? 'eu-west-1' : undefined) });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const deps = v.demo
    ? (await import('../demo/mcp-demo.js')).demoMcpDeps(version, positionals.length ? positionals : undefined)
    : await accountDeps(
        {
          table: v.table ?? process.env.POD_DOCTOR_TABLE,
          bucket: v.bucket ?? process.env.POD_DOCTOR_EVIDENCE_BUCKET,
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
