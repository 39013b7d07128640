import { parseArgs } from 'node:util';
import { type CheckClients, type CheckGroup, runCheckGroup } from '../lambdas/aws/checks/groups.js';
import { type NodeContext, resolveNode } from '../lambdas/aws/readers/account/node-context.js';
import type { Finding } from '../lambdas/core/contract/findings.js';

const HELP = `Usage: pod-doctor diagnose --cluster NAME [--node NAME|INSTANCE_ID] [--region R] [--profile P] [--image REF] [--json]

Runs pod-doctor's account checks, read-only, against a real account with the standard AWS credential
chain (environment, shared config and SSO via --profile/AWS_PROFILE, instance or container role).
With --node it resolves the node and runs every check group; without, the cluster-level ones.
Nothing is changed in the account.`;

export interface DiagnoseOptions {
  readonly cluster: string;
  readonly node?: string;
  readonly region: string;
  readonly image?: string;
}

export interface DiagnoseReport {
  readonly cluster: string;
  readonly node: NodeContext | null;
  readonly findings: Finding[];
}

/** The checks of `diagnose`, on the clients given (real ones from the CLI, recorded ones in tests). */
export async function diagnose(clients: CheckClients, o: DiagnoseOptions, now = new Date()): Promise<DiagnoseReport> {
  const node = o.node ? await resolveNode(clients.ec2, clients.iam, o.node) : null;
  const groups: CheckGroup[] = node ? ['iam', 'ecr', 'network', 'eks', 'changes'] : ['ecr', 'changes'];
  const findings: Finding[] = [];
  for (const g of groups) {
    findings.push(
      ...(await runCheckGroup(
        g,
        {
          node: node ? { ...node, securityGroupIds: [...node.securityGroupIds] } : undefined,
          cluster: o.cluster,
          region: o.region,
          image: o.image,
          neededIps: 16,
          lookbackHours: 72,
        },
        clients,
        now,
      )),
    );
  }
  return { cluster: o.cluster, node, findings };
}

const ICON: Record<string, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', error: 'ERR ' };

export function renderReport(r: DiagnoseReport): string {
  const lines = [
    `pod-doctor diagnose: cluster ${r.cluster}${r.node ? `, node ${r.node.privateDnsName ?? ''} (${r.node.instanceId}), role ${r.node.roleName ?? '?'}` : ''}`,
    '',
  ];
  for (const f of r.findings) {
    lines.push(`${ICON[f.status] ?? f.status}  ${f.id}: ${f.summary}`);
    if (f.remediation && f.status !== 'pass') lines.push(`      → ${f.remediation}`);
  }
  const counts = ['fail', 'warn', 'error']
    .map((s) => `${r.findings.filter((f) => f.status === s).length} ${s}`)
    .join(', ');
  lines.push('', `${r.findings.length} checks: ${counts}`);
  return lines.join('\n');
}

/** A clear message instead of a stack trace when the credential chain comes up empty. */
export function credentialsProblem(e: unknown, command = 'diagnose'): string | undefined {
  const err = e as { name?: string; message?: string };
  if (
    /CredentialsProviderError|Could not load credentials|ExpiredToken|InvalidClientTokenId|UnrecognizedClientException/.test(
      `${err?.name} ${err?.message}`,
    )
  ) {
    return `pod-doctor ${command}: no usable AWS credentials (${err.message?.split('\n')[0]}).\nSet credentials the usual way (aws configure / aws sso login, AWS_PROFILE or --profile, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and run again.`;
  }
  return undefined;
}

export async function runDiagnoseCommand(args: readonly string[]): Promise<number> {
  let values: {
    cluster?: string;
    node?: string;
    region?: string;
    profile?: string;
    image?: string;
    json?: boolean;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        cluster: { type: 'string' },
        node: { type: 'string' },
        region: { type: 'string' },
        profile: { type: 'string' },
        image: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    process.stderr.write(`pod-doctor diagnose: ${(e as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (!values.cluster) {
    process.stderr.write(`pod-doctor diagnose: --cluster is required\n\n${HELP}\n`);
    return 2;
  }
  if (values.profile) process.env.AWS_PROFILE = values.profile;
  const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) {
    process.stderr.write('pod-doctor diagnose: no region: pass --region or set AWS_REGION\n');
    return 2;
  }
  process.env.AWS_REGION = region;
  const { cliCheckClients } = await import('./account-clients.js');
  const clients = cliCheckClients();
  try {
    await clients.eks.config.credentials();
  } catch (e) {
    process.stderr.write(`${credentialsProblem(e) ?? `pod-doctor diagnose: ${(e as Error).message}`}\n`);
    return 1;
  }
  try {
    const report = await diagnose(clients, { cluster: values.cluster, node: values.node, region, image: values.image });
    process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : `${renderReport(report)}\n`);
    return report.findings.some((f) => f.status === 'fail' || f.status === 'error') ? 3 : 0;
  } catch (e) {
    const msg = credentialsProblem(e);
    process.stderr.write(`${msg ?? `pod-doctor diagnose: ${(e as Error).name}: ${(e as Error).message}`}\n`);
    return 1;
  }
}
