import { parseArgs } from 'node:util';
import type { SignalReading } from '../lambdas/core/incident/signal-health.js';
import type { PreflightRow } from './preflight-checks.js';

const HELP = `Usage: pod-doctor preflight --cluster NAME [--cluster NAME ...] [--region R] [--profile P] [--json]

Read-only checks of an account before deploying pod-doctor, with the standard AWS credential chain:
the cluster in the region, a CloudTrail trail logging in the region (EventBridge API-call events),
the Container Insights dataplane log group and its subscription filters (CloudWatch Logs allows 2),
ipamd logs shipped (AWS_VPC_K8S_CNI_LOG_FILE=stdout), the SSM agent on the nodes, the node tags
SendCommand requires, and the SSM VPC endpoints where nodes have no internet route. Then each detection
signal of each cluster: Kubernetes events readable, a kubelet line in the dataplane group and an aws-node
line in the application group in the last 24 h, a trail delivering CloudTrail events.
--json prints one line per cluster: {cluster, region, rows, signals}.
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

/** The signals of a cluster under its table: signal, status, what was found. */
export function renderSignals(signals: readonly SignalReading[]): string {
  const width = Math.max(6, ...signals.map((s) => s.signal.length));
  return [
    `${'SIGNAL'.padEnd(width)}  STATUS   DETAIL`,
    ...signals.map((s) => `${s.signal.padEnd(width)}  ${s.status.toUpperCase().padEnd(7)}  ${s.detail}`),
  ].join('\n');
}

interface Values {
  cluster?: string[];
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
        cluster: { type: 'string', multiple: true },
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
  if (!values.cluster?.length) {
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
  const { preflightSignals } = await import('./preflight-signals.js');
  let failed = false;
  for (const cluster of values.cluster) {
    const rows = await preflight(clients, { cluster, region });
    const signals = await preflightSignals(clients, { cluster, region });
    failed ||= rows.some((r) => r.status === 'fail');
    process.stdout.write(
      values.json
        ? `${JSON.stringify({ cluster, region, rows, signals })}\n`
        : `${renderPreflight(cluster, region, rows)}\n\n${renderSignals(signals)}\n\n`,
    );
  }
  return failed ? 3 : 0;
}

/** The same credential chain and retry settings as `diagnose`, plus SSM and CloudWatch Logs. */
async function realClients() {
  const { accountClients } = await import('./account-clients.js');
  const { SSMClient } = await import('@aws-sdk/client-ssm');
  const { CloudTrailClient } = await import('@aws-sdk/client-cloudtrail');
  const { CloudWatchLogsClient } = await import('@aws-sdk/client-cloudwatch-logs');
  const checks = accountClients();
  const { ClusterApi } = await import('../lambdas/aws/readers/kubernetes/cluster-api.js');
  const { endpointCache } = await import('../lambdas/aws/readers/kubernetes/endpoint.js');
  const { EksTokenCache } = await import('../lambdas/aws/readers/kubernetes/token.js');
  const endpoint = endpointCache(checks.eks, process.env.AWS_REGION ?? '');
  const tokens = new EksTokenCache(() => checks.eks.config.credentials());
  return {
    kubernetes: async (cluster: string) =>
      new ClusterApi(await endpoint(cluster), tokens, { maxAttempts: 1, maxPages: 1 }),
    ec2: checks.ec2,
    eks: checks.eks,
    cloudtrail: new CloudTrailClient({ maxAttempts: 6 }),
    ssm: new SSMClient({ maxAttempts: 6 }),
    logs: new CloudWatchLogsClient({ maxAttempts: 6 }),
  };
}
