import type { Finding } from '../contract/findings.js';
import { failingOnNode, healthyNode, probeShowsClass } from './node-signs.js';

/**
 * The cause on evidence its target owns, pure. A node's own probe (run by the door itself and
 * recorded by it), aws-node's own pod as the API server keeps it, the cluster's own objects. Text —
 * a log line, a pod's event, a pod's `spec.nodeName`, a record envelope — may have opened the
 * incident; it is never the evidence here.
 */

/**
 * The evidence that must show the cause right before an action, owned by its target: the node's
 * own probe (still failing, or healthy again before an eviction), aws-node's own pod, the
 * cluster's own objects, or the account re-read by the remedy's apply path.
 */
export type EvidenceKind =
  | 'none'
  | 'node-failing'
  | 'node-healthy'
  | 'node-failing-or-unreachable'
  | 'aws-node'
  | 'cluster'
  | 'account';

/**
 * The cause, as evidence the target owns shows it now: it holds; it is gone (nothing to do); the
 * action cannot address it; the evidence cannot tell (the probe could not run); or there is no fresh
 * evidence yet (the door probes the node first).
 */
export type CauseVerdict =
  | { readonly status: 'holds'; readonly reason: string }
  | { readonly status: 'gone'; readonly reason: string }
  | { readonly status: 'cannot'; readonly reason: string }
  | { readonly status: 'stale'; readonly reason: string }
  | { readonly status: 'unknown'; readonly reason: string };

/** How old the node's probe may be when no approval was asked (an approval wants a probe taken after it). */
export const NODE_EVIDENCE_MAX_AGE_MS = 15 * 60_000;

/** The newest probe the door ran on a node: its findings, or why it could not run. */
export type NodeEvidence =
  | { readonly at: number; readonly findings: readonly Finding[] }
  | { readonly at: number; readonly notRun: string };

/**
 * The cause for a node-level action on the node's own probe, taken at or after `since` (the
 * approval; else the age limit): a repair or restart needs the node still failing, an eviction
 * needs it healthy again, a drain needs it failing or unreachable through SSM.
 */
export function nodeCause(
  evidence: EvidenceKind,
  failureClass: string,
  probe: NodeEvidence | undefined,
  since: number,
): CauseVerdict {
  if (evidence === 'none') return { status: 'holds', reason: 'needs no proof: it changes nothing the cause is about' };
  // A class the node's own probe cannot show is text's word only (a log line, an event, a pod that
  // named its node): it may be reported, never acted on.
  if (evidence === 'node-failing' && !probeShowsClass(failureClass))
    return {
      status: 'cannot',
      reason: `no node-owned evidence can show ${failureClass} on the node: reported, not acted on`,
    };
  if (!probe || probe.at < since)
    return { status: 'stale', reason: 'no probe of the node since the plan was approved or within 15 minutes' };
  if ('notRun' in probe) return notRun(evidence, probe.notRun);
  const bad = failingOnNode(failureClass, probe.findings);
  if (evidence === 'node-healthy')
    return bad.length
      ? {
          status: 'cannot',
          reason: `the node fails again (${bad.map((x) => x.id).join(', ')}): re-created pods would fail the same way`,
        }
      : { status: 'holds', reason: `the node is healthy: ${healthyNode(failureClass)}` };
  if (bad.length === 0 && probeShowsClass(failureClass))
    return { status: 'gone', reason: `the node no longer fails: ${healthyNode(failureClass)}` };
  return { status: 'holds', reason: `the node's probe still shows ${bad.map((x) => x.id).join(', ') || failureClass}` };
}

function notRun(evidence: EvidenceKind, why: string): CauseVerdict {
  if (evidence === 'node-failing-or-unreachable')
    return { status: 'holds', reason: `the node cannot be probed (${why}): it is drained through the API` };
  if (evidence === 'node-healthy')
    return { status: 'unknown', reason: `cannot tell whether the repaired node is healthy: ${why}` };
  return { status: 'unknown', reason: `cannot tell whether the node still fails: ${why}` };
}

/** aws-node on one node as the API server keeps it (its own pod, its own status). */
export interface AwsNodeEvidence {
  readonly pod: string;
  readonly ready: boolean;
  readonly restarts: number;
}

/**
 * The cause for restarting aws-node on a node: aws-node's own pod is not Ready (its readiness probe
 * is ipamd's gRPC health check: ipamd does not answer), or — CNI permissions — the door attached
 * AmazonEKS_CNI_Policy to the role aws-node uses in this incident and verified it. Pods stuck on the
 * node are never the proof: any tenant can make its own pod fail there.
 */
export function awsNodeCause(
  nodeName: string,
  awsNode: AwsNodeEvidence | undefined,
  o: { readonly failureClass: string; readonly cniPolicyAttached: boolean },
): CauseVerdict {
  if (!awsNode) return { status: 'cannot', reason: `no aws-node pod runs on node ${nodeName}` };
  if (!awsNode.ready)
    return {
      status: 'holds',
      reason: `aws-node ${awsNode.pod} on ${nodeName} is not Ready (${awsNode.restarts} restarts): ipamd does not answer its readiness probe`,
    };
  if (o.failureClass === 'cni-permissions' && o.cniPolicyAttached)
    return {
      status: 'holds',
      reason: `AmazonEKS_CNI_Policy was attached to the role aws-node uses in this incident: aws-node on ${nodeName} restarts to use it`,
    };
  return {
    status: 'gone',
    reason: `aws-node ${awsNode.pod} on ${nodeName} is Ready: ipamd answers (pods stuck on the node are not aws-node's evidence)`,
  };
}

/** ConfigMap kube-system/amazon-vpc-cni's `enable-windows-ipam`, and the cluster's Windows nodes (kubelet-set OS label). */
export interface WindowsIpamEvidence {
  readonly configMapExists: boolean;
  readonly value: string | null;
  readonly windowsNodes: number;
}

/** The cause for enabling Windows IPAM, on the cluster's own objects: the key is not "true" and the cluster has Windows nodes. */
export function windowsIpamCause(e: WindowsIpamEvidence): CauseVerdict {
  if (!e.configMapExists)
    return {
      status: 'cannot',
      reason: 'ConfigMap kube-system/amazon-vpc-cni does not exist (is the VPC CNI installed?)',
    };
  if (e.value === 'true') return { status: 'gone', reason: 'enable-windows-ipam is already "true"' };
  if (e.windowsNodes === 0)
    return {
      status: 'cannot',
      reason: 'the cluster has no Windows node (label kubernetes.io/os=windows): nothing to enable Windows IPAM for',
    };
  return {
    status: 'holds',
    reason: `enable-windows-ipam is ${e.value === null ? 'absent' : `"${e.value}"`} and the cluster has ${e.windowsNodes} Windows node(s)`,
  };
}

/** The cause as an account remedy's apply path re-read it (the diagnosis check run again). */
export function applyPathCause(check: {
  readonly ok: boolean;
  readonly reason: string;
  readonly cannot?: boolean;
}): CauseVerdict {
  if (check.ok) return { status: 'holds', reason: check.reason };
  return check.cannot ? { status: 'cannot', reason: check.reason } : { status: 'gone', reason: check.reason };
}
