import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import { type CheckClients, type CheckGroup, runCheckGroup } from '../lambdas/aws/checks/groups.js';
import { type NodeContext, resolveNode } from '../lambdas/aws/readers/account/node-context.js';
import type { Finding } from '../lambdas/core/contract/findings.js';
import type { ParsedArgs } from './args.js';

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

/** The account has no EKS cluster of that name in the Region: nothing to diagnose. */
export class ClusterNotFoundError extends Error {
  override readonly name = 'ClusterNotFoundError';
}

/** Fails with {@link ClusterNotFoundError} when EKS does not know the cluster (the checks would pass on nothing). */
async function requireCluster(eks: EKSClient, cluster: string, region: string): Promise<void> {
  try {
    await eks.send(new DescribeClusterCommand({ name: cluster }));
  } catch (e) {
    if ((e as Error).name !== 'ResourceNotFoundException') throw e;
    throw new ClusterNotFoundError(`no EKS cluster named ${cluster} in ${region} for these credentials`);
  }
}

/**
 * The checks of `diagnose`, on the clients given (real ones from the CLI, recorded ones in tests),
 * after EKS confirms the cluster exists.
 */
export async function diagnose(clients: CheckClients, o: DiagnoseOptions, now = new Date()): Promise<DiagnoseReport> {
  await requireCluster(clients.eks, o.cluster, o.region);
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

/** `pod-doctor diagnose` on parsed arguments (cli/commands.ts holds its help and options). */
export async function runDiagnoseCommand({ values }: ParsedArgs): Promise<number> {
  const v = values as {
    cluster: string;
    node?: string;
    region?: string;
    profile?: string;
    image?: string;
    json?: boolean;
  };
  const { resolveAccountRegion } = await import('./region.js');
  let region: string;
  try {
    region = await resolveAccountRegion('diagnose', v);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const { cliCheckClients } = await import('./account-clients.js');
  const clients = cliCheckClients();
  try {
    await clients.eks.config.credentials();
  } catch (e) {
    process.stderr.write(`${credentialsProblem(e) ?? `pod-doctor diagnose: ${(e as Error).message}`}\n`);
    return 1;
  }
  try {
    const report = await diagnose(clients, { cluster: v.cluster, node: v.node, region, image: v.image });
    process.stdout.write(v.json ? `${JSON.stringify(report)}\n` : `${renderReport(report)}\n`);
    return report.findings.some((f) => f.status === 'fail' || f.status === 'error') ? 3 : 0;
  } catch (e) {
    const msg = credentialsProblem(e);
    process.stderr.write(`${msg ?? `pod-doctor diagnose: ${(e as Error).name}: ${(e as Error).message}`}\n`);
    return 1;
  }
}
