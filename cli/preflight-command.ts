import { parseArgs } from 'node:util';
import type { PreflightRow } from './preflight-checks.js';

const HELP = `Usage: pod-doctor preflight --cluster NAME [--region R] [--profile P] [--json]

Read-only checks of an account before deploying pod-doctor, with the standard AWS credential chain:
the cluster in the region, a CloudTrail trail logging in the region (EventBridge API-call events),
the Container Insights dataplane log group and its subscription filters (CloudWatch Logs allows 2),
ipamd logs shipped (AWS_VPC_K8S_CNI_LOG_FILE=stdout), the SSM agent on the nodes, the node tags
SendCommand requires, and the SSM VPC endpoints where nodes have no internet route.
Nothing is changed in the account. Exit code 3 when a check fails.`;

const LABEL: Record<string, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', unknown: '?   ' };

/** One table: check, result, detail, and the fix under each row that is not a pass. */
export function renderPreflight(cluster: string, region: string, rows: readonly PreflightRow[]): string {
  const width = Math.max(5, ...rows.map((r) => r.id.length));
  const lines = [
    `pod-doctor preflight: cluster ${cluster} in ${region} (read-only)`,
    '',
    `${'CHECK'.padEnd(width)}  RESULT  DETAIL`,
  ];
  for (const r of rows) {
    lines.push(`${r.id.padEnd(width)}  ${LABEL[r.status]}    ${r.detail}`);
    if (r.fix && r.status !== 'pass') lines.push(`${''.padEnd(width)}          fix: ${r.fix}`);
  }
  const count = (s: string) => rows.filter((r) => r.status === s).length;
  lines.push('', `${count('pass')} pass, ${count('fail')} fail, ${count('warn')} warn, ${count('unknown')} unknown`);
  return lines.join('\n');
}

interface Values {
  cluster?: string;
  region?: string;
  profile?: string;
  json?: boolean;
  help?: boolean;
}

function parse(args: readonly string[]): Values | string {
  try {
    return parseArgs({
      args: [...args],
      options: {
        cluster: { type: 'string' },
        region: { type: 'string' },
        profile: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    return (e as Error).message;
  }
}

export async function runPreflightCommand(args: readonly string[]): Promise<number> {
  const values = parse(args);
  if (typeof values === 'string') {
    process.stderr.write(`pod-doctor preflight: ${values}\n\n${HELP}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (!values.cluster) {
    process.stderr.write(`pod-doctor preflight: --cluster is required\n\n${HELP}\n`);
    return 2;
  }
  if (values.profile) process.env.AWS_PROFILE = values.profile;
  const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) {
    process.stderr.write('pod-doctor preflight: no region: pass --region or set AWS_REGION\n');
    return 2;
  }
  process.env.AWS_REGION = region;
  const { credentialsProblem } = await import('./diagnose-command.js');
  const clients = await realClients();
  try {
    await clients.eks.config.credentials();
  } catch (e) {
    process.stderr.write(`${credentialsProblem(e, 'preflight') ?? `pod-doctor preflight: ${(e as Error).message}`}\n`);
    return 1;
  }
  const { preflight } = await import('./preflight-checks.js');
  const rows = await preflight(clients, { cluster: values.cluster, region });
  process.stdout.write(
    values.json
      ? `${JSON.stringify({ cluster: values.cluster, region, rows })}\n`
      : `${renderPreflight(values.cluster, region, rows)}\n`,
  );
  return rows.some((r) => r.status === 'fail') ? 3 : 0;
}

/** The same credential chain and retry settings as `diagnose`, plus SSM and CloudWatch Logs. */
async function realClients() {
  const { accountClients } = await import('./account-clients.js');
  const { SSMClient } = await import('@aws-sdk/client-ssm');
  const { CloudTrailClient } = await import('@aws-sdk/client-cloudtrail');
  const { CloudWatchLogsClient } = await import('@aws-sdk/client-cloudwatch-logs');
  const checks = accountClients();
  return {
    ec2: checks.ec2,
    eks: checks.eks,
    cloudtrail: new CloudTrailClient({ maxAttempts: 6 }),
    ssm: new SSMClient({ maxAttempts: 6 }),
    logs: new CloudWatchLogsClient({ maxAttempts: 6 }),
  };
}
