import { describe, expect, it } from 'vitest';
import { ACCOUNT, healthyAccount, NODE_ROLE } from '../../local/account-snapshot.js';
import { TemplateAuthorizer } from '../../local/iam.js';
import { type CfnResource, resolveTemplate } from '../../local/template.js';
import { synth } from '../support/synth.js';

const nodeRole = `arn:aws:iam::${ACCOUNT}:role/${NODE_ROLE}`;
const cluster = { name: 'prod-eu', region: 'eu-west-1' };

/** The node role's identity policies as the recorded account holds them (AWS managed: no S3). */
function nodeIdentity() {
  const account = healthyAccount();
  return account.roles[NODE_ROLE].attached.map((arn) => account.managedPolicies[arn] as never);
}

async function uploadAllowed(config: unknown, key: string): Promise<boolean> {
  const t = resolveTemplate(synth(config).templateJson as { Resources: Record<string, CfnResource> });
  const [bucketId] =
    Object.entries(t.raw).find(([id, r]) => r.Type === 'AWS::S3::Bucket' && /EvidenceBucket/.test(id)) ?? [];
  const policy = Object.values(t.Resources).find(
    (r) => r.Type === 'AWS::S3::BucketPolicy' && String(r.Properties?.Bucket).includes(String(bucketId).toLowerCase()),
  );
  const bucket = String(policy?.Properties?.Bucket);
  const why = await new TemplateAuthorizer(t).deniedBecause(
    nodeRole,
    { action: 's3:PutObject', resource: `arn:aws:s3:::${bucket}/${key}` },
    nodeIdentity(),
  );
  return why === undefined;
}

describe('collect-logs uploads: the evidence bucket grants the configured node roles (finding 10)', () => {
  it('without nodeRoleArns the node role cannot put its bundle (what every deployment had)', async () => {
    expect(await uploadAllowed({ clusters: [cluster] }, 'incidents/inc-1/logs.tar.gz')).toBe(false);
  });

  it('a configured node role may put objects under incidents/ and nowhere else', async () => {
    const config = { clusters: [{ ...cluster, nodeRoleArns: [nodeRole] }] };
    const { template } = synth(config);
    const statements = Object.values(template.findResources('AWS::S3::BucketPolicy')).flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }).Properties.PolicyDocument
          .Statement,
    );
    const grant = statements.filter((s) => JSON.stringify(s.Principal).includes(NODE_ROLE));
    expect(grant).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { AWS: nodeRole },
        Action: 's3:PutObject',
        Resource: {
          'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/EvidenceBucket/), 'Arn'] }, '/incidents/*']],
        },
      }),
    ]);
    expect(await uploadAllowed(config, 'incidents/inc-1/logs.tar.gz')).toBe(true);
    expect(await uploadAllowed(config, 'rejected/2026/11/29/x.jsonl')).toBe(false);
  });

  it('refuses a node role that is not an IAM role ARN', () => {
    expect(() => synth({ clusters: [{ ...cluster, nodeRoleArns: ['arn:aws:iam::111122223333:user/alice'] }] })).toThrow(
      /nodeRoleArns.*must be an IAM role ARN/s,
    );
  });
});
