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

  it('a request on `*` is allowed only by a statement on `*` (iam-simulate alone reads `*` as any resource)', async () => {
    const group = 'arn:aws:ec2:eu-west-1:111122223333:security-group/sg-0123456789abcdef0';
    const t = stack([{ Effect: 'Allow', Action: 'ec2:AuthorizeSecurityGroupIngress', Resource: group }]);
    const a = new TemplateAuthorizer(t);
    await expect(
      a.authorize(roleArn(t), { action: 'ec2:AuthorizeSecurityGroupIngress', resource: group }),
    ).resolves.toBeUndefined();
    await expect(
      a.authorize(roleArn(t), { action: 'ec2:AuthorizeSecurityGroupIngress', resource: '*' }),
    ).rejects.toMatchObject({ name: 'UnauthorizedOperation' });
  });

  it('a wildcard-only action (resource `*`) is allowed only by a statement on `*`, as IAM decides', async () => {
    const instance = 'arn:aws:ec2:eu-west-1:111122223333:instance/i-0123456789abcdef0';
    const scoped = new TemplateAuthorizer(
      stack([{ Effect: 'Allow', Action: 'ec2:DescribeInstances', Resource: instance }]),
    );
    const role = roleArn(stack([]));
    await expect(scoped.authorize(role, { action: 'ec2:DescribeInstances', resource: '*' })).rejects.toMatchObject({
      name: 'UnauthorizedOperation',
    });
    const pattern = new TemplateAuthorizer(
      stack([{ Effect: 'Allow', Action: 'ec2:DescribeInstances', Resource: 'arn:aws:ec2:*:111122223333:*' }]),
    );
    await expect(pattern.authorize(role, { action: 'ec2:DescribeInstances', resource: '*' })).rejects.toMatchObject({
      name: 'UnauthorizedOperation',
    });
    const star = new TemplateAuthorizer(stack([{ Effect: 'Allow', Action: 'ec2:DescribeInstances', Resource: '*' }]));
    await expect(star.authorize(role, { action: 'ec2:DescribeInstances', resource: '*' })).resolves.toBeUndefined();
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

describe('a function URL with auth type NONE, as Lambda authorises it since October 2025', () => {
  const permissions = {
    Url: {
      Type: 'AWS::Lambda::Permission',
      Properties: {
        Action: 'lambda:InvokeFunctionUrl',
        FunctionName: { 'Fn::GetAtt': ['Fn', 'Arn'] },
        Principal: '*',
        FunctionUrlAuthType: 'NONE',
      },
    },
    Invoke: {
      Type: 'AWS::Lambda::Permission',
      Properties: {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': ['Fn', 'Arn'] },
        Principal: '*',
        InvokedViaFunctionUrl: true,
      },
    },
  };

  it('lets anyone invoke the function through its URL, and no one directly (the InvokeFunction grant is for URL calls only)', async () => {
    const t = stack([], permissions);
    const fn = String(t.Resources.Invoke?.Properties?.FunctionName ?? '');
    const a = new TemplateAuthorizer(t);
    await expect(
      a.authorize('anonymous', {
        action: 'lambda:InvokeFunction',
        resource: fn,
        context: { 'lambda:InvokedViaFunctionUrl': 'true' },
      }),
    ).resolves.toBeUndefined();
    await expect(a.authorize('anonymous', { action: 'lambda:InvokeFunction', resource: fn })).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    await expect(
      a.authorize('anonymous', {
        action: 'lambda:InvokeFunction',
        resource: fn,
        context: { 'lambda:InvokedViaFunctionUrl': 'false' },
      }),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});

describe('requestsOf: the IAM request each SDK call makes', () => {
  it.each([
    [
      'dynamodb',
      'PutCommand',
      { TableName: 't1', Item: { pk: 'INCIDENT#k' } },
      'dynamodb:PutItem',
      'arn:aws:dynamodb:eu-west-1:111122223333:table/t1',
    ],
    [
      'dynamodb',
      'QueryCommand',
      { TableName: 't1', IndexName: 'g', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'x' } },
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
    [
      'ec2',
      'AuthorizeSecurityGroupIngressCommand',
      { GroupId: 'sg-0fedcba9876543210' },
      'ec2:AuthorizeSecurityGroupIngress',
      'arn:aws:ec2:eu-west-1:111122223333:security-group/sg-0fedcba9876543210',
    ],
    [
      'ec2',
      'CreateSubnetCidrReservationCommand',
      { SubnetId: 'subnet-0a1b2c3d4e5f67890' },
      'ec2:CreateSubnetCidrReservation',
      'arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-0a1b2c3d4e5f67890',
    ],
    ['ec2', 'DeleteSubnetCidrReservationCommand', {}, 'ec2:DeleteSubnetCidrReservation', '*'],
    [
      'iam',
      'SimulatePrincipalPolicyCommand',
      { PolicySourceArn: 'arn:aws:iam::111122223333:role/r' },
      'iam:SimulatePrincipalPolicy',
      'arn:aws:iam::111122223333:role/r',
    ],
  ])('%s %s', (service, command, input, action, resource) => {
    expect(requestsOf(service, command, input).map((r) => ({ action: r.action, resource: r.resource }))).toEqual([
      { action, resource },
    ]);
  });

  it('context keys a remedy grant conditions on: iam:PolicyARN on Attach/DetachRolePolicy, ec2:Region on every EC2 call', () => {
    expect(
      requestsOf('iam', 'AttachRolePolicyCommand', { RoleName: 'r', PolicyArn: 'arn:aws:iam::aws:policy/P' }),
    ).toEqual([
      {
        action: 'iam:AttachRolePolicy',
        resource: 'arn:aws:iam::111122223333:role/r',
        context: { 'iam:PolicyARN': 'arn:aws:iam::aws:policy/P' },
      },
    ]);
    expect(requestsOf('ec2', 'DeleteSubnetCidrReservationCommand', {})[0].context).toEqual({
      'ec2:Region': 'eu-west-1',
    });
  });

  it('a condition on iam:PolicyARN decides: another policy on the same role is denied', async () => {
    const t = stack([
      {
        Effect: 'Allow',
        Action: 'iam:AttachRolePolicy',
        Resource: 'arn:aws:iam::111122223333:role/r',
        Condition: { ArnEquals: { 'iam:PolicyARN': ['arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy'] } },
      },
    ]);
    const a = new TemplateAuthorizer(t);
    const attach = (policy: string) =>
      requestsOf('iam', 'AttachRolePolicyCommand', {
        RoleName: 'r',
        PolicyArn: `arn:aws:iam::aws:policy/${policy}`,
      })[0];
    expect(await a.deniedBecause(roleArn(t), attach('AmazonEKS_CNI_Policy'))).toBeUndefined();
    expect(await a.deniedBecause(roleArn(t), attach('AdministratorAccess'))).toMatch(/no identity-based policy/);
  });

  it('refuses a call it has no mapping for (unmapped would mean unchecked)', () => {
    expect(() => requestsOf('ssm', 'DeleteParameterCommand', {})).toThrow(
      expect.objectContaining({ name: 'UnmappedCallError' }),
    );
  });

  it('every item call and Query carries its partition key as dynamodb:LeadingKeys, as DynamoDB sets it', () => {
    const keys = (command: string, input: Record<string, unknown>) =>
      requestsOf('dynamodb', command, { TableName: 't', ...input })[0].context?.['dynamodb:LeadingKeys'];
    expect(keys('PutCommand', { Item: { pk: 'GRANT#d', sk: 'GRANT' } })).toEqual(['GRANT#d']);
    expect(keys('GetItemCommand', { Key: { pk: { S: 'CONFIG' }, sk: { S: 'v' } } })).toEqual(['CONFIG']);
    expect(
      keys('QueryCommand', { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'CAP#c' } }),
    ).toEqual(['CAP#c']);
    expect(
      keys('QueryCommand', {
        KeyConditionExpression: 'begins_with(sk, :s) AND :p = #k',
        ExpressionAttributeNames: { '#k': 'pk' },
        ExpressionAttributeValues: { ':p': 'LEDGER#x', ':s': 'CALL#' },
      }),
    ).toEqual(['LEDGER#x']);
    // A Scan carries none (as in AWS); an item call without one would pass ForAllValues vacuously: refused.
    expect(keys('ScanCommand', {})).toBeUndefined();
    expect(() => requestsOf('dynamodb', 'UpdateCommand', { TableName: 't', Key: {} })).toThrow(
      expect.objectContaining({ name: 'UnmappedCallError' }),
    );
  });
});
