import { describe, expect, it } from 'vitest';
import { openRecommendations } from '../../lambdas/core/voices/next-steps.js';

const RESTART = 'restart aws-node on the node (delete its pod of DaemonSet kube-system/aws-node)';
const planned = [
  { id: 'collect-logs', description: 'collect a node log bundle into the evidence bucket' },
  { id: 'restart-aws-node', description: RESTART },
];
const recommendations = [
  RESTART,
  'eks.addon-versions: inspect the add-on health issues (aws eks describe-addon) and resolve conflicts',
  'k8s.aws-node: restart the aws-node pod on this node; check its logs for ipamd errors',
  'check the aws-node pod on the node (kubectl -n kube-system get pods -l k8s-app=aws-node -o wide) and its logs',
];

describe('next steps after a run', () => {
  it('a step pod-doctor did and verified is not recommended again, nor the fix of the check it answered', () => {
    expect(openRecommendations(recommendations, planned, ['restart-aws-node', 'collect-logs'])).toEqual([
      recommendations[1],
      recommendations[3],
    ]);
  });

  it('nothing done: every recommendation stays, in order', () => {
    expect(openRecommendations(recommendations, planned, [])).toEqual(recommendations);
  });

  it('a done action answers only its own checks: another check with the same words stays', () => {
    const recs = ['iam.node-role.ecr-read: attach the policy', 'vpc.endpoint.sg-443: allow 443'];
    expect(openRecommendations(recs, [], ['attach-managed-policy'])).toEqual([recs[1]]);
  });
});
