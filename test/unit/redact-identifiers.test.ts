import { describe, expect, it } from 'vitest';
import { REDACTED, redact } from '../../lambdas/core/text/redact.js';

/**
 * Identifiers are not secrets: an ARN names a resource, and a summary that says which policy it
 * attached must still say so after redaction. AWS managed policy ARNs have the length and the
 * character mix of a generated key (`policy/AmazonEC2ContainerRegistryReadOnly`: 41 characters,
 * upper, lower and digits), which is how `arn:aws:iam::aws:[REDACTED]` reached the demo's outcome.
 */
const ARNS = [
  'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
  'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy',
  'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy',
  'arn:aws:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role',
  'arn:aws:iam::111122223333:role/eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1A2B3C4D5E6F7',
  'arn:aws:iam::111122223333:policy/EksWorkloadBoundary',
  'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ecr-pullthroughcache/docker-hub-Xy12Ab',
  'arn:aws:states:eu-west-1:111122223333:execution:PodDoctorWorkflow2B4C6D8E:f18d38dfad1df7fb-1795946400',
  'arn:aws:ecr:eu-west-1:444455556666:repository/shared/base',
  'arn:aws-cn:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
];

describe('an ARN is not a secret', () => {
  it.each(ARNS)('%s survives in prose, after a key and in JSON', (arn) => {
    for (const text of [
      arn,
      `remedied and verified: attach ${arn} to role eks-node`,
      `PolicyArn=${arn}`,
      `{"policyArn":"${arn}","SecretArn":"${arn}"}`,
      `"RoleArn": "${arn}"`,
    ])
      expect(redact(text), text).toBe(text);
  });

  it('a secret next to an ARN still goes', () => {
    const key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    expect(redact(`role ${ARNS[4]} key ${key}`)).toBe(`role ${ARNS[4]} key ${REDACTED}`);
    expect(redact(`${ARNS[0]} aws_secret_access_key=${key}`)).toBe(`${ARNS[0]} aws_secret_access_key=${REDACTED}`);
    expect(redact(`${ARNS[0]}, then ${key}`)).toBe(`${ARNS[0]}, then ${REDACTED}`);
  });
});
