/**
 * What is left for a human after a run: the plan's recommendations without the steps pod-doctor
 * itself did and verified. A summary that says "restart-aws-node verified" never recommends
 * restarting aws-node again, and one that attached a policy never asks for it to be attached.
 */

/**
 * The checks an action answers once done and verified: their remediations are not next steps any
 * more. Only what the action itself changes (the repair restores the image it probes; the restart
 * replaces the aws-node pod the check read; the attach adds the policy the check missed).
 */
export const ANSWERED_BY: Readonly<Record<string, readonly string[]>> = {
  'repair-pause-image': ['node.sandbox-image.present', 'node.sandbox-image.pinned'],
  'restart-runtime': ['node.pids', 'node.zombies'],
  'restart-aws-node': ['k8s.aws-node'],
  'attach-managed-policy': ['iam.node-role.ecr-read', 'iam.cni-policy'],
  'add-sg-rule': ['vpc.endpoint.sg-443'],
  'enable-windows-ipam': ['k8s.windows-ipam'],
  'create-cidr-reservation': ['subnet.free-prefix-blocks'],
};

/** A planned action as the plan lists it: its kind and the words its recommendation used. */
export interface PlannedStep {
  readonly id: string;
  readonly description: string;
}

/**
 * The recommendations still open after the actions `done` (kinds pod-doctor ran and verified): each
 * done action's own recommendation and the remediations of the checks it answered are dropped;
 * everything else stays, in order.
 */
export function openRecommendations(
  recommendations: readonly string[],
  planned: readonly PlannedStep[],
  done: readonly string[],
): string[] {
  if (done.length === 0) return [...recommendations];
  const doneWords = new Set(planned.filter((a) => done.includes(a.id)).map((a) => a.description));
  const answered = done.flatMap((kind) => ANSWERED_BY[kind] ?? []);
  return recommendations.filter((r) => !doneWords.has(r) && !answered.some((check) => r.startsWith(`${check}: `)));
}
