import { describe, expect, it } from 'vitest';
import { requestsOf } from '../../local/guard.js';
import { TemplateAuthorizer } from '../../local/iam.js';
import { type CfnResource, resolveTemplate } from '../../local/template.js';

const doc = (...Statement: Record<string, unknown>[]) => ({ Version: '2012-10-17', Statement });
const roleArn = (t: ReturnType<typeof resolveTemplate>) => String((t.Resources.Fn.Properties as { Role: string }).Role);

/** A role with one identity policy, a function using it, plus whatever resources a case adds. */
function stack(statements: Record<string, unknown>[], extra: Record<string, CfnResource> = {}) {
  return resolveTemplate({
    Resources: {
      Role: { Type: 'AWS::IAM::Role', Properties: {} },
      Policy: {
        Type: 'AWS::IAM::Policy',
        Properties: { PolicyDocument: doc(...statements), Roles: [{ Ref: 'Role' }] },
      },
      Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
      ...extra,
    },
  });
}

const keyArn = { 'Fn::GetAtt': ['Key', 'Arn'] };
const rootKeyPolicy = doc({
  Effect: 'Allow',
  Principal: {
    AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] },
  },
  Action: 'kms:*',
  Resource: '*',
});

describe('TemplateAuthorizer (iam-simulate over the synthesized template)', () => {
  it('allows what the identity policy grants and throws the service AccessDenied otherwise', async () => {
    const t = stack([{ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': ['Table', 'Arn'] } }], {
      Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    });
    const a = new TemplateAuthorizer(t);
    const table = String(
      (t.Resources.Policy.Properties as { PolicyDocument: { Statement: { Resource: string }[] } }).PolicyDocument
        .Statement[0].Resource,
    );
    await expect(a.authorize(roleArn(t), { action: 'dynamodb:GetItem', resource: table })).resolves.toBeUndefined();
    await expect(a.authorize(roleArn(t), { action: 'dynamodb:PutItem', resource: table })).rejects.toMatchObject({
      name: 'AccessDeniedException',
      __type: 'AccessDeniedException',
      message: expect.stringMatching(
        /^User: arn:aws:sts::111122223333:assumed-role\/.+ is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:eu-west-1:111122223333:table\//,
      ),
    });
    expect(a.decisions.map((d) => d.allowed)).toEqual([true, false]);
  });

  it('a KMS key whose policy does not enable IAM policies refuses even an identity grant', async () => {
    const grant = [{ Effect: 'Allow', Action: 'kms:GenerateDataKey*', Resource: keyArn }];
    const closed = stack(grant, {
      Key: {
        Type: 'AWS::KMS::Key',
        Properties: {
          KeyPolicy: doc({
            Effect: 'Allow',
            Principal: { Service: 'events.amazonaws.com' },
            Action: 'kms:*',
            Resource: '*',
          }),
        },
      },
    });
    const open = stack(grant, { Key: { Type: 'AWS::KMS::Key', Properties: { KeyPolicy: rootKeyPolicy } } });
    const key = (t: typeof open) =>
      String(
        (t.Resources.Policy.Properties as { PolicyDocument: { Statement: { Resource: string }[] } }).PolicyDocument
          .Statement[0].Resource,
      );
    const req = (t: typeof open) => ({ action: 'kms:GenerateDataKey', resource: key(t) });
    await expect(new TemplateAuthorizer(open).authorize(roleArn(open), req(open))).resolves.toBeUndefined();
    await expect(new TemplateAuthorizer(closed).authorize(roleArn(closed), req(closed))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
  });

  it("a bucket policy's explicit deny wins over the identity grant", async () => {
    const t = stack(
      [
        {
          Effect: 'Allow',
          Action: 's3:PutObject',
          Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Bucket', 'Arn'] }, '/*']] },
        },
      ],
      {
        Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
        BucketPolicy: {
          Type: 'AWS::S3::BucketPolicy',
          Properties: {
            Bucket: { Ref: 'Bucket' },
            PolicyDocument: doc({
              Effect: 'Deny',
              Principal: { AWS: '*' },
              Action: 's3:PutObject',
              Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Bucket', 'Arn'] }, '/secret/*']] },
            }),
          },
        },
      },
    );
    const a = new TemplateAuthorizer(t);
    const bucket = String(t.Resources.BucketPolicy.Properties?.Bucket);
    await expect(
      a.authorize(roleArn(t), { action: 's3:PutObject', resource: `arn:aws:s3:::${bucket}/ok/x` }),
    ).resolves.toBeUndefined();
    await expect(
      a.authorize(roleArn(t), { action: 's3:PutObject', resource: `arn:aws:s3:::${bucket}/secret/x` }),
    ).rejects.toMatchObject({
      name: 'AccessDenied',
      message: expect.stringContaining('explicit deny'),
    });
  });

  it('an anonymous function URL call needs a Lambda permission for the NONE auth type', async () => {
    const url = {
      Type: 'AWS::Lambda::Permission',
      Properties: {
        Action: 'lambda:InvokeFunctionUrl',
        FunctionName: { 'Fn::GetAtt': ['Fn', 'Arn'] },
        Principal: '*',
        FunctionUrlAuthType: 'NONE',
      },
    };
    const fn = (t: ReturnType<typeof stack>) => String(t.Resources.Perm?.Properties?.FunctionName ?? '');
    const withPermission = stack([], { Perm: url });
    const req = { action: 'lambda:InvokeFunctionUrl', context: { 'lambda:FunctionUrlAuthType': 'NONE' } };
    await expect(
      new TemplateAuthorizer(withPermission).authorize('anonymous', { ...req, resource: fn(withPermission) }),
    ).resolves.toBeUndefined();
    const without = stack([]);
    const arn = fn(withPermission);
    await expect(
      new TemplateAuthorizer(without).authorize('anonymous', { ...req, resource: arn }),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
  });
});

describe('requestsOf: the IAM request each SDK call makes', () => {
  it.each([
    [
      'dynamodb',
      'PutCommand',
      { TableName: 't1' },
      'dynamodb:PutItem',
      'arn:aws:dynamodb:eu-west-1:111122223333:table/t1',
    ],
    [
      'dynamodb',
      'QueryCommand',
      { TableName: 't1', IndexName: 'g' },
      'dynamodb:Query',
      'arn:aws:dynamodb:eu-west-1:111122223333:table/t1/index/g',
    ],
    [
      's3',
      'PutObjectCommand',
      { Bucket: 'b', Key: 'incidents/1/x.json' },
      's3:PutObject',
      'arn:aws:s3:::b/incidents/1/x.json',
    ],
    ['states', 'SendTaskSuccessCommand', { taskToken: 't' }, 'states:SendTaskSuccess', '*'],
    [
      'ssm',
      'GetParameterCommand',
      { Name: '/pod-doctor/kill' },
      'ssm:GetParameter',
      'arn:aws:ssm:eu-west-1:111122223333:parameter/pod-doctor/kill',
    ],
    ['ec2', 'DescribeInstancesCommand', {}, 'ec2:DescribeInstances', '*'],
    ['iam', 'GetRolePolicyCommand', { RoleName: 'r' }, 'iam:GetRolePolicy', 'arn:aws:iam::111122223333:role/r'],
    [
      'eks',
      'DescribeClusterCommand',
      { name: 'c' },
      'eks:DescribeCluster',
      'arn:aws:eks:eu-west-1:111122223333:cluster/c',
    ],
    [
      'ecr',
      'DescribeImagesCommand',
      { repositoryName: 'a/b', registryId: '444455556666' },
      'ecr:DescribeImages',
      'arn:aws:ecr:eu-west-1:444455556666:repository/a/b',
    ],
  ])('%s %s', (service, command, input, action, resource) => {
    expect(requestsOf(service, command, input)).toEqual([{ action, resource }]);
  });

  it('refuses a call it has no mapping for (unmapped would mean unchecked)', () => {
    expect(() => requestsOf('ssm', 'DeleteParameterCommand', {})).toThrow(
      expect.objectContaining({ name: 'UnmappedCallError' }),
    );
  });
});
