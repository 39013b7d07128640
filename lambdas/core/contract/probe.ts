import type { Finding } from './findings.js';

/** What a Run Command poll loop leaves in the state (narrowed GetCommandInvocation output). */
export interface CommandResult {
  readonly status: string;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly responseCode?: number;
  readonly commandId?: string;
  /** Why the command could not be sent or read (status `CommandError`): the Step Functions error. */
  readonly error?: { readonly Error?: string; readonly Cause?: string };
}

/** SendCommand was denied: the node carries no tag the grant accepts (or the grant is missing). */
function deniedRemediation(result: CommandResult): string | null {
  const text = `${result.error?.Error ?? ''} ${result.error?.Cause ?? ''}`;
  return /AccessDenied|not authorized/i.test(text)
    ? 'SendCommand was denied: pod-doctor may run commands only on instances whose eks:cluster-name, eks:eks-cluster-name or kubernetes.io/cluster/<name>=owned tag names a configured cluster; tag the node (launch template tag specifications)'
    : null;
}

/** The last line of a node script's stdout, parsed (the scripts' contract); undefined when absent. */
export function lastJsonLine(stdout: string | undefined): Record<string, unknown> | undefined {
  const lines = (stdout ?? '').trim().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (!l.startsWith('{')) continue;
    try {
      return JSON.parse(l) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Node findings from a probe-node run; a probe that did not run is an `error` finding (fail closed). */
export function probeFindings(result: CommandResult | undefined): Finding[] {
  if (!result || result.status === 'skipped') return [];
  if (result.status !== 'Success') {
    return [
      {
        id: 'node.probe',
        status: 'error',
        summary: `node probe did not run: ${result.status}${result.error?.Error ? ` (${result.error.Error})` : ''}`,
        evidence: {
          status: result.status,
          stderr: (result.stderr ?? '').slice(-500),
          ...(result.error ? { error: result.error.Error, cause: (result.error.Cause ?? '').slice(0, 500) } : {}),
        },
        remediation:
          result.status === 'NotManaged' || result.status === 'Undeliverable'
            ? 'the node is not reachable through SSM: check the SSM agent and the node role (AmazonSSMManagedInstanceCore)'
            : deniedRemediation(result),
      },
    ];
  }
  const doc = lastJsonLine(result.stdout);
  const list = (doc?.findings as { id: string; status: string; summary: string; evidence: string }[] | undefined) ?? [];
  if (!doc)
    return [
      {
        id: 'node.probe',
        status: 'error',
        summary: 'node probe printed no JSON',
        evidence: { stdout: (result.stdout ?? '').slice(-500) },
        remediation: null,
      },
    ];
  return list.map((f) => ({
    id: f.id,
    status: (['pass', 'warn', 'fail'].includes(f.status) ? f.status : 'error') as Finding['status'],
    summary: f.summary,
    evidence: { detail: f.evidence },
    remediation: null,
  }));
}
