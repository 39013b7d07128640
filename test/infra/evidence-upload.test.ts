import { beforeAll, describe, expect, it } from 'vitest';
import { EvidenceBucket } from '../../lib/constructs/evidence-bucket.js';
import { ACCOUNT, healthyAccount, NODE_ID, NODE_ROLE } from '../../local/account-snapshot.js';
import { TemplateAuthorizer } from '../../local/iam.js';
import { type CfnResource, type ResolvedTemplate, resolveTemplate } from '../../local/template.js';
import { synth } from '../support/synth.js';

/**
 * The evidence bucket's policy as S3 decides it (the local IAM over the synthesized template): node
 * roles write only new objects under their own `nodes/<aws:userid>/`; nobody, pod-doctor's own roles
 * included, replaces an object (summaries, history, bundles, rejected records).
 */
const nodeRole = `arn:aws:iam::${ACCOUNT}:role/${NODE_ROLE}`;
/** An EC2 instance role session's aws:userid: role id, then the instance id (which the node cannot choose). */
const nodeUserId = (instance = NODE_ID) => `AROAEXAMPLEID:${instance}`;
const cluster = { name: 'prod-eu', region: 'eu-west-1' };
const create = { 's3:ObjectCreationOperation': 'true', 's3:if-none-match': '*' };
const overwrite = { 's3:ObjectCreationOperation': 'true' };

/** The node role's identity policies as the recorded account holds them (AWS managed: no S3). */
function nodeIdentity() {
  const account = healthyAccount();
  return account.roles[NODE_ROLE].attached.map((arn) => account.managedPolicies[arn] as never);
}

function evidenceBucketOf(t: ResolvedTemplate): string {
  const [bucketId] =
    Object.entries(t.raw).find(([id, r]) => r.Type === 'AWS::S3::Bucket' && /EvidenceBucket/.test(id)) ?? [];
  const policy = Object.values(t.Resources).find(
    (r) => r.Type === 'AWS::S3::BucketPolicy' && String(r.Properties?.Bucket).includes(String(bucketId).toLowerCase()),
  );
  return String(policy?.Properties?.Bucket);
}

/** The execution role of the function whose environment and logical id match. */
function roleOf(t: ResolvedTemplate, logicalId: RegExp): string {
  const [, fn] =
    Object.entries(t.raw).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && logicalId.test(id)) ?? [];
  const id = Object.keys(t.raw).find((k) => t.raw[k] === fn);
  return String(t.Resources[String(id)]?.Properties?.Role);
}

let withNodes: ResolvedTemplate;
let withoutNodes: ResolvedTemplate;
beforeAll(() => {
  const resolve = (config: unknown) =>
    resolveTemplate(synth(config).templateJson as { Resources: Record<string, CfnResource> });
  withNodes = resolve({ clusters: [{ ...cluster, nodeRoleArns: [nodeRole] }] });
  withoutNodes = resolve({ clusters: [cluster] });
}, 240_000);

async function allowed(
  t: ResolvedTemplate,
  principal: string,
  key: string,
  context: Record<string, string>,
  identity?: never[],
): Promise<boolean> {
  const why = await new TemplateAuthorizer(t).deniedBecause(
    principal,
    { action: 's3:PutObject', resource: `arn:aws:s3:::${evidenceBucketOf(t)}/${key}`, context },
    identity,
  );
  return why === undefined;
}

describe('node uploads: each node writes only new objects under its own prefix', () => {
  const node = (t: ResolvedTemplate, key: string, context: Record<string, string>) =>
    allowed(t, nodeRole, key, { 'aws:userid': nodeUserId(), ...context }, nodeIdentity());
  const own = `nodes/${nodeUserId()}/incidents/inc-1/logs.tar.gz`;

  it('without nodeRoleArns the node role cannot put its bundle (what every deployment had)', async () => {
    expect(await node(withoutNodes, own, create)).toBe(false);
  });

  it('a configured node role creates its bundle under nodes/<its aws:userid>/', async () => {
    expect(await node(withNodes, own, create)).toBe(true);
  });

  it('refuses another node’s prefix, the summaries, the rejected records and any other key', async () => {
    for (const key of [
      `nodes/${nodeUserId('i-0ffffffffffffffff')}/incidents/inc-1/logs.tar.gz`,
      'nodes/AROAOTHERROLE:i-0a1b2c3d4e5f60718/x.tar.gz',
      'incidents/inc-1/arn-exec/summary.json',
      'incidents/inc-1/arn-exec/summary.md',
      'rejected/2026/11/29/x.jsonl',
      'logs.tar.gz',
    ])
      expect(await node(withNodes, key, create), key).toBe(false);
  });

  it('refuses overwriting, even its own bundle (no If-None-Match: explicit deny)', async () => {
    expect(await node(withNodes, own, overwrite)).toBe(false);
  });
});

describe('the audit trail is append-only for every role pod-doctor creates or grants', () => {
  it('Summarize creates summaries but cannot replace one', async () => {
    const summarize = roleOf(withNodes, /Summarize/);
    const key = 'incidents/inc-1/exec-1/summary.json';
    expect(await allowed(withNodes, summarize, key, create)).toBe(true);
    expect(await allowed(withNodes, summarize, key, overwrite)).toBe(false);
    expect(await allowed(withNodes, summarize, `nodes/${nodeUserId()}/x`, create)).toBe(false);
  });

  it('ingest creates rejected records but cannot replace one, nor write a summary', async () => {
    const ingest = roleOf(withNodes, /DetectionIngest/);
    expect(await allowed(withNodes, ingest, 'rejected/2026/11/29/x.jsonl', create)).toBe(true);
    expect(await allowed(withNodes, ingest, 'rejected/2026/11/29/x.jsonl', overwrite)).toBe(false);
    expect(await allowed(withNodes, ingest, 'incidents/inc-1/exec-1/summary.json', create)).toBe(false);
  });

  it('an administrator with s3:* on the bucket still cannot replace an object', async () => {
    const admin = [
      { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] },
    ] as never[];
    const key = 'incidents/inc-1/exec-1/summary.json';
    expect(await allowed(withNodes, 'arn:aws:iam::111122223333:role/Admin', key, overwrite, admin)).toBe(false);
    expect(await allowed(withNodes, 'arn:aws:iam::111122223333:role/Admin', key, create, admin)).toBe(true);
  });
});

describe('bucket policy statements', () => {
  it('grants a configured node role its own node prefix (the aws:userid policy variable) and nothing else', async () => {
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
          'Fn::Join': [
            '',
            [{ 'Fn::GetAtt': [expect.stringMatching(/EvidenceBucket/), 'Arn'] }, `/${EvidenceBucket.NODE_UPLOADS}`],
          ],
        },
      }),
    ]);
  });

  it('refuses a node role that is not an IAM role ARN', () => {
    expect(() => synth({ clusters: [{ ...cluster, nodeRoleArns: ['arn:aws:iam::111122223333:user/alice'] }] })).toThrow(
      /nodeRoleArns.*must be an IAM role ARN/s,
    );
  });
});
