import type { Finding } from '../contract/findings.js';
import { normalizeImage, untrustedPauseImage } from '../contract/trust.js';

/** What the workflow knows about the node before it may act on it. */
export interface NodeTrustInput {
  readonly class: string;
  /** The incident's cluster (from the configuration, by log group). */
  readonly cluster: string;
  /** The sandbox image named by the failure line, if any (tenant-influenced text). */
  readonly loggedImage?: string;
  /** The resolved instance: its id and the cluster its tags name. */
  readonly node?: { readonly instanceId?: string; readonly clusterName?: string };
  /** Why Resolve node found no instance to act on (not found, other cluster). */
  readonly resolveError?: string;
  /** The node's probe as the door ran it: its status and the sandbox image the node is configured with. */
  readonly probe?: { readonly status: string; readonly sandboxImage?: string };
  readonly findings: readonly Finding[];
  readonly trustedSandboxImages: readonly string[];
}

export interface NodeTrust {
  /** The instance pod-doctor may act on; undefined: diagnose only. */
  readonly instanceId?: string;
  /** The sandbox image a pause repair may restore; undefined: no pause repair. */
  readonly sandboxImage?: string;
  /** Why an action is not possible, for the summary. */
  readonly reasons: readonly string[];
  /** Why there is no sandbox image to restore (when the class is sandbox-image). */
  readonly repairRefusal?: string;
}

const NODE_ACTION_CLASSES = new Set([
  'sandbox-image',
  'pid-exhaustion',
  'disk-full',
  'runtime-failure',
  'cni-failure',
  'ipamd-unavailable',
]);

/** The sandbox image the node's probe read from containerd / kubelet configuration. */
export function probedSandboxImage(probe: NodeTrustInput['probe']): string | undefined {
  return probe?.status === 'Success' && probe.sandboxImage ? probe.sandboxImage : undefined;
}

/**
 * Decides what the workflow may touch. The target is the instance resolved from the log envelope
 * and only if its tags put it in the incident's cluster; the pause image is the one the node is
 * configured with, only if it is a trusted pause repository, only if the failure line (if it names
 * one) names that same image, and only while the probe still finds it missing or unpinned.
 */
export function nodeTrust(i: NodeTrustInput): NodeTrust {
  const reasons: string[] = [];
  let instanceId = i.node?.instanceId;
  if (!instanceId && i.resolveError) {
    reasons.push(`diagnose only: ${i.resolveError}`);
  } else if (!instanceId) {
    if (NODE_ACTION_CLASSES.has(i.class))
      reasons.push(
        'diagnose only: no node from the record envelope (ec2_instance_id / hostname) resolved to an instance; log text never names the target',
      );
  } else if (i.node?.clusterName !== i.cluster) {
    reasons.push(
      `diagnose only: instance ${instanceId} is tagged for cluster ${i.node?.clusterName ?? '(none)'}, not ${i.cluster}`,
    );
    instanceId = undefined;
  }
  if (i.class !== 'sandbox-image' || !instanceId) return { instanceId, reasons };
  const refusals: string[] = [];
  const sandboxImage = trustedSandboxImage(i, refusals);
  return { instanceId, sandboxImage, reasons, repairRefusal: refusals[0] };
}

function trustedSandboxImage(i: NodeTrustInput, refusals: string[]): string | undefined {
  const configured = probedSandboxImage(i.probe);
  if (!configured) {
    refusals.push('the node probe did not report the configured sandbox image');
    return undefined;
  }
  const why = untrustedPauseImage(configured, i.trustedSandboxImages);
  if (why) {
    refusals.push(`the node's configured sandbox image ${configured} is not trusted (${why})`);
    return undefined;
  }
  if (i.loggedImage && normalizeImage(i.loggedImage) !== normalizeImage(configured)) {
    refusals.push(`the failing image ${i.loggedImage} is not this node's sandbox image ${normalizeImage(configured)}`);
    return undefined;
  }
  const state = i.findings.filter((f) => f.id === 'node.sandbox-image.present' || f.id === 'node.sandbox-image.pinned');
  if (state.length > 0 && state.every((f) => f.status === 'pass')) {
    refusals.push(`the probe finds ${configured} present and pinned`);
    return undefined;
  }
  return normalizeImage(configured);
}
