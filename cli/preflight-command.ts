import type { SignalReading } from '../lambdas/core/incident/signal-health.js';
import type { ParsedArgs } from './args.js';
import type { PreflightRow } from './preflight-checks.js';

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

/** `pod-doctor preflight` on parsed arguments (cli/commands.ts holds its help and options). */
export async function runPreflightCommand({ values }: ParsedArgs): Promise<number> {
  const v = values as { cluster: string[]; region?: string; profile?: string; json?: boolean };
  const { resolveAccountRegion } = await import('./region.js');
  let region: string;
  try {
    region = await resolveAccountRegion('preflight', v);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
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
  for (const cluster of v.cluster) {
    const rows = await preflight(clients, { cluster, region });
    const signals = await preflightSignals(clients, { cluster, region });
    failed ||= rows.some((r) => r.status === 'fail');
    process.stdout.write(
      v.json
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
