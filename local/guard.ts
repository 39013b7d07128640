import { AsyncLocalStorage } from 'node:async_hooks';
import type { AwsRequest, PolicyDocument, TemplateAuthorizer } from './iam.js';
import { ACCOUNT, PARTITION, REGION } from './template.js';

/** The role the code running now acts as (a Lambda function's execution role, the state machine role). */
const current = new AsyncLocalStorage<string>();

/** Runs `f` as `roleArn`: every guarded client call inside is authorised for that role. */
export function asRole<T>(roleArn: string, f: () => T): T {
  return current.run(roleArn, f);
}

/** Error for a call the local runtime cannot map to an IAM request: unmapped means unchecked, so refuse. */
export class UnmappedCallError extends Error {
  override readonly name = 'UnmappedCallError';
}

type Input = Record<string, unknown>;
const s = (v: unknown) => String(v ?? '');
const arn = (service: string, resource: string, account = ACCOUNT) =>
  `arn:${PARTITION}:${service}:${REGION}:${account}:${resource}`;
const one = (action: string, resource: string, context?: AwsRequest['context']): AwsRequest[] => [
  { action, resource, ...(context ? { context } : {}) },
];

/** lib-dynamodb command names → DynamoDB API actions. */
const DOCUMENT_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Get: 'GetItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  Query: 'Query',
  Scan: 'Scan',
};

/** The IAM requests one SDK call makes: action(s) and resource ARN(s), per the Service Authorization Reference. */
export function requestsOf(service: string, command: string, i: Input): AwsRequest[] {
  const name = command.replace(/Command$/, '');
  const action = `${service}:${service === 'dynamodb' ? (DOCUMENT_ACTIONS[name] ?? name) : name}`;
  switch (service) {
    case 'dynamodb': {
      const table = arn('dynamodb', `table/${s(i.TableName)}`);
      const keys = leadingKeys(i);
      // DynamoDB sets dynamodb:LeadingKeys on every item call and Query: a request without it here would
      // pass a ForAllValues condition vacuously, more leniently than AWS. Only a Scan carries none.
      if (!keys.length && name !== 'Scan') throw new UnmappedCallError(`no partition key found in dynamodb:${name}`);
      return one(
        action,
        i.IndexName ? `${table}/index/${s(i.IndexName)}` : table,
        keys.length ? { 'dynamodb:LeadingKeys': keys } : undefined,
      );
    }
    case 's3':
      return one(action, `arn:${PARTITION}:s3:::${s(i.Bucket)}/${s(i.Key)}`, s3Context(name, i));
    case 'sns':
      return one(action, s(i.TopicArn));
    case 'states':
      // SendTask* are wildcard-only: the token, not an ARN, names the execution.
      return one(action, /^SendTask/.test(name) ? '*' : s(i.stateMachineArn));
    case 'ssm':
      if (name === 'GetParameter') return one(action, arn('ssm', `parameter/${s(i.Name).replace(/^\//, '')}`));
      // SendCommand authorizes the document here and each instance (with its tags) as the caller adds.
      if (name === 'SendCommand') return one(action, arn('ssm', `document/${s(i.DocumentName)}`));
      if (name === 'GetCommandInvocation') return one(action, '*');
      break;
    case 'secretsmanager':
      return one(action, s(i.SecretId));
    case 'ec2':
      return ec2Requests(action, name, i);
    case 'cloudtrail':
      return one(action, '*');
    case 'iam':
      if (/^(Attach|Detach)RolePolicy$/.test(name))
        return one(action, `arn:${PARTITION}:iam::${ACCOUNT}:role/${s(i.RoleName)}`, {
          'iam:PolicyARN': s(i.PolicyArn),
        });
      if (name === 'SimulatePrincipalPolicy') return one(action, s(i.PolicySourceArn));
      if (name === 'GetInstanceProfile')
        return one(action, `arn:${PARTITION}:iam::${ACCOUNT}:instance-profile/${s(i.InstanceProfileName)}`);
      if (/^(ListAttachedRolePolicies|ListRolePolicies|GetRolePolicy)$/.test(name))
        return one(action, `arn:${PARTITION}:iam::${ACCOUNT}:role/${s(i.RoleName)}`);
      if (/^GetPolicy(Version)?$/.test(name)) return one(action, s(i.PolicyArn));
      break;
    case 'eks':
      return eksRequests(action, name, i);
    case 'ecr': {
      // Pull-through cache rule actions have no resource type: only the Region scopes them.
      if (/PullThroughCache/.test(name)) return one(action, '*', { 'aws:RequestedRegion': REGION });
      const repo = (n: unknown) => arn('ecr', `repository/${s(n)}`, s(i.registryId) || ACCOUNT);
      if (name === 'DescribeRepositories') {
        const names = (i.repositoryNames as string[] | undefined) ?? ['*'];
        return names.map((n) => ({ action, resource: repo(n) }));
      }
      return one(action, repo(i.repositoryName));
    }
  }
  throw new UnmappedCallError(`no IAM mapping for ${service}:${name}`);
}

/**
 * The S3 condition keys a write carries: `s3:ObjectCreationOperation` (true for PutObject, CopyObject and
 * CompleteMultipartUpload) and `s3:if-none-match` when the request has that header
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes-enforce.html).
 */
function s3Context(name: string, i: Input): AwsRequest['context'] {
  if (name !== 'PutObject') return undefined;
  return { 's3:ObjectCreationOperation': 'true', ...(i.IfNoneMatch ? { 's3:if-none-match': s(i.IfNoneMatch) } : {}) };
}

/**
 * The partition key values an item call touches, as DynamoDB passes them in `dynamodb:LeadingKeys`:
 * the item's or key's `pk`, or the value a Query's key condition binds to `pk`.
 */
function leadingKeys(i: Input): string[] {
  const item = (i.Item ?? i.Key) as { pk?: unknown } | undefined;
  // A document client's value, or a low-level client's attribute value ({ S: … }).
  const value = (v: unknown) => s(v !== null && typeof v === 'object' && 'S' in v ? v.S : v);
  if (item?.pk !== undefined) return [value(item.pk)];
  // `pk = :v` or `#n = :v` with #n naming pk, on either side of the `=`.
  const names = (i.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const isPk = (n: string) => n === 'pk' || names[n] === 'pk';
  const values = (i.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  for (const m of s(i.KeyConditionExpression).matchAll(/([:#\w]+)\s*=\s*([:#\w]+)/g)) {
    const [name, ref] = isPk(m[1]) ? [m[1], m[2]] : isPk(m[2]) ? [m[2], m[1]] : [];
    if (name && ref && values[ref] !== undefined) return [value(values[ref])];
  }
  return [];
}

/**
 * EC2: the writes pod-doctor makes name their resource (security group, subnet); reads and
 * DeleteSubnetCidrReservation have no resource type (`*`). Every EC2 request carries `ec2:Region`.
 */
function ec2Requests(action: string, name: string, i: Input): AwsRequest[] {
  const context = { 'ec2:Region': REGION };
  if (/^(Authorize|Revoke)SecurityGroupIngress$/.test(name))
    return one(action, arn('ec2', `security-group/${s(i.GroupId)}`), context);
  if (name === 'CreateSubnetCidrReservation') return one(action, arn('ec2', `subnet/${s(i.SubnetId)}`), context);
  if (/^(Describe|Get)/.test(name) || name === 'DeleteSubnetCidrReservation') return one(action, '*', context);
  throw new UnmappedCallError(`no IAM mapping for ec2:${name}`);
}

function eksRequests(action: string, name: string, i: Input): AwsRequest[] {
  // DescribeCluster names the cluster `name`; the other EKS calls `clusterName`.
  const cluster = s(i.clusterName ?? i.name);
  // Sub-resource ARNs end in an id the API does not take: the recorded account's fixed one stands in.
  const id = '3ac5e6e2-1d7c-2a6e-8f3b-0123456789ab';
  switch (name) {
    case 'DescribeCluster':
    case 'ListPodIdentityAssociations':
      return one(action, arn('eks', `cluster/${cluster}`));
    case 'DescribeAddon':
    case 'UpdateAddon':
      return one(action, arn('eks', `addon/${cluster}/${s(i.addonName)}/${id}`));
    case 'DescribeNodegroup':
      return one(action, arn('eks', `nodegroup/${cluster}/${s(i.nodegroupName)}/${id}`));
    case 'DescribePodIdentityAssociation':
      return one(action, arn('eks', `podidentityassociation/${cluster}/${s(i.associationId)}`));
    case 'DescribeAddonVersions':
      return one(action, '*');
  }
  throw new UnmappedCallError(`no IAM mapping for eks:${name}`);
}

interface Sendable {
  send(command: unknown, ...rest: unknown[]): Promise<unknown>;
}

/**
 * Makes every `send` of `client` authorised first, as the role running at the time (see
 * {@link asRole}); `extra` adds requests a call implies (SNS → KMS for an encrypted topic);
 * `resourcePolicyOf` gives the policy of a resource the template does not hold (another account's
 * ECR repository: a cross-account request needs its resource policy to allow it too). Works
 * on clients stubbed with aws-sdk-client-mock too: call it after mocking.
 */
export function guard<C extends Sendable>(
  client: C,
  service: string,
  authz: TemplateAuthorizer,
  extra: (command: string, input: Input) => AwsRequest[] = () => [],
  resourcePolicyOf: (request: AwsRequest) => PolicyDocument | undefined = () => undefined,
): C {
  const send = client.send.bind(client);
  client.send = (async (command: { constructor: { name: string }; input: Input }, ...rest: unknown[]) => {
    const role = current.getStore();
    if (!role) throw new Error(`${service} call outside any role: wrap the caller in asRole()`);
    const name = command.constructor.name;
    for (const r of [...requestsOf(service, name, command.input), ...extra(name, command.input)]) {
      const resourcePolicy = resourcePolicyOf(r);
      await authz.authorize(role, r, resourcePolicy ? { resourcePolicy } : undefined);
    }
    return send(command, ...rest);
  }) as C['send'];
  return client;
}
