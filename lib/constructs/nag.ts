import { Stack, Validations } from 'aws-cdk-lib';
import { CfnPolicy, type PolicyDocument } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
// cdk-nag's own rendering of a resource in an AwsSolutions-IAM5 finding id (not re-exported by its index).
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { IConstruct } from 'constructs';

/**
 * Every cdk-nag acknowledgement pod-doctor makes, each with its reason, in one place. Constructs call
 * these functions; no other module calls `Validations.of(...).acknowledge`.
 */

function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/**
 * The cdk-nag finding id of a wildcard resource, computed the way cdk-nag computes it: the resource
 * as the template will hold it, rendered by cdk-nag's own flattening. The id therefore matches in
 * every environment — `arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*` when the
 * stack is environment-agnostic, `arn:<AWS::Partition>:ec2:eu-west-1:111122223333:instance/*` when
 * `cdk deploy` sets CDK_DEFAULT_ACCOUNT/REGION — instead of a string written for one of the two.
 */
export function wildcardResourceFinding(scope: IConstruct, resource: string): string {
  return `AwsSolutions::AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
}

/**
 * Acknowledges the AwsSolutions-IAM5 finding of each wildcard resource, given as the policy holds it
 * (the same value the grant used, tokens included).
 */
export function acknowledgeWildcardResources(scope: IConstruct, resources: readonly string[], reason: string): void {
  for (const resource of resources) acknowledge(scope, wildcardResourceFinding(scope, resource), reason);
}

// --- every pod-doctor function -------------------------------------------------------------------

/** Findings every pod-doctor function raises: X-Ray wildcard, pinned runtime, DLQ when synchronous. */
export function acknowledgeFunction(fn: IConstruct, role: IConstruct, synchronousOnly: boolean): void {
  acknowledgeWildcardResources(
    role,
    ['*'],
    'X-Ray PutTraceSegments/PutTelemetryRecords (added by Tracing.ACTIVE) do not support resource-level permissions.',
  );
  if (synchronousOnly) {
    acknowledge(
      fn,
      'Serverless::Serverless-LambdaDLQ',
      'Invoked synchronously by Step Functions only: the state machine retries and catches failures; a DLQ would never receive an event.',
    );
  }
  for (const id of ['AwsSolutions::AwsSolutions-L1', 'Serverless::Serverless-LambdaLatestVersion']) {
    acknowledge(
      fn,
      id,
      'Runtime pinned to nodejs22.x on purpose: bundles target node22 and are tested on it; moving to a newer runtime is a reviewed change, not a side effect of a CDK upgrade.',
    );
  }
}

// --- storage ----------------------------------------------------------------------------------------

/** The two findings every dead-letter queue raises. */
export function acknowledgeDeadLetterQueue(queue: IConstruct): void {
  const reason = 'This queue is itself a dead-letter queue; a DLQ of a DLQ would only move the problem.';
  acknowledge(queue, 'AwsSolutions::AwsSolutions-SQS3', reason);
  acknowledge(queue, 'Serverless::Serverless-SQSRedrivePolicy', reason);
}

/** The server access log bucket has no access log of its own. */
export function acknowledgeAccessLogBucket(bucket: IConstruct): void {
  acknowledge(
    bucket,
    'AwsSolutions::AwsSolutions-S1',
    'This is the server access log bucket of the evidence bucket; logging it into itself would loop.',
  );
}

/** A function writes objects under one prefix of the evidence bucket. */
export function acknowledgeEvidencePrefix(role: IConstruct, bucket: IBucket, prefix: string, what: string): void {
  acknowledgeWildcardResources(
    role,
    [bucket.arnForObjects(`${prefix}/*`)],
    `${what} are written under ${prefix}/ with generated keys; the prefix is the narrowest scope.`,
  );
}

// --- detection and checks -----------------------------------------------------------------------------

const DESCRIBE_ONLY = 'EC2 Describe*/Get* read calls do not support resource-level permissions.';
const IAM_READ =
  'Node and aws-node roles (and their managed policies, including AWS managed ones) are created outside this stack; the checks read whichever role a node uses.';

/** Read calls without resource-level permissions (EC2 Describe*, ...). */
export function acknowledgeDescribeOnly(role: IConstruct, reason = DESCRIBE_ONLY): void {
  acknowledgeWildcardResources(role, ['*'], reason);
}

/** Node instance profiles belong to node groups created outside the stack. */
export function acknowledgeInstanceProfiles(role: IConstruct, arns: readonly string[]): void {
  acknowledgeWildcardResources(
    role,
    arns,
    'Node instance profiles are created by node groups outside this stack; their names are not known at deploy time.',
  );
}

/** The IAM check reads any role and policy a node or aws-node may use. */
export function acknowledgeIamRead(role: IConstruct, arns: readonly string[]): void {
  acknowledgeWildcardResources(role, arns, IAM_READ);
}

/** The ECR check reads repository metadata of any repository pods pull from. */
export function acknowledgeAnyRepository(role: IConstruct, arns: readonly string[]): void {
  acknowledgeWildcardResources(
    role,
    arns,
    'Pods pull from any repository, in any region and (cross-account) any registry; read-only metadata calls.',
  );
}

const EKS_REASONS = {
  addon: 'Add-on ARNs end in a generated id; scoped to the configured cluster.',
  podidentityassociation: 'Association ids are generated; scoped to the configured cluster.',
  nodegroup: 'Node group ARNs end in a generated id; scoped to the configured cluster.',
  'access-entry': 'Access entry ARNs end in generated ids; scoped to the configured cluster.',
} as const;

/** EKS sub-resources (add-ons, node groups, Pod Identity associations) of the configured clusters. */
export function acknowledgeClusterResources(
  role: IConstruct,
  kind: keyof typeof EKS_REASONS,
  arns: readonly string[],
  reason?: string,
): void {
  acknowledgeWildcardResources(role, arns, reason ?? EKS_REASONS[kind]);
}

// --- workflow -----------------------------------------------------------------------------------------

/** The HMAC key behind approval links is replaced, not rotated. */
export function acknowledgeKeyRotation(rotation: IConstruct): void {
  acknowledgeWildcardResources(
    rotation,
    ['*'],
    'secretsmanager:GetRandomPassword has no resource type (CDK grants it to every rotation function): it generates the new key.',
  );
}

/** Publishing to the KMS-encrypted topic adds `kms:GenerateDataKey*` on its key. */
export function acknowledgeTopicKey(role: IConstruct): void {
  acknowledge(
    role,
    'AwsSolutions::AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    'Publishing to the KMS-encrypted topic: grantPublish adds kms:GenerateDataKey* on the topic key only.',
  );
}

/**
 * The state machine's wildcards: logs/X-Ray/GetCommandInvocation and function versions. (SendCommand
 * on tagged instances is acknowledged where it is granted: `NodeCommands.grantSendCommand`.)
 */
export function acknowledgeStateMachine(stateMachine: IConstruct, invoked: readonly IFunction[]): void {
  acknowledgeWildcardResources(
    stateMachine,
    ['*'],
    'Step Functions log delivery and X-Ray actions, and ssm:GetCommandInvocation, do not support resource-level permissions.',
  );
  acknowledge(
    stateMachine,
    'AwsSolutions::AwsSolutions-SF1',
    'Execution logs at level ERROR without execution data on purpose: the state carries the approval task token and node command output, which must not be copied into CloudWatch Logs; the execution history (90 days) and the evidence bucket keep every step.',
  );
  // LambdaInvoke grants invoke on the function and its versions (":*").
  acknowledgeWildcardResources(
    stateMachine,
    invoked.map((f) => `${f.functionArn}:*`),
    'Invoking any version of pod-doctor’s own workflow function.',
  );
}

/** A scheduler role's invoke grant (the LambdaInvoke target grants the function and its versions). */
export function acknowledgeScheduleTarget(role: IConstruct, fn: IFunction, what = 'sweep'): void {
  acknowledgeWildcardResources(
    role,
    [`${fn.functionArn}:*`],
    `EventBridge Scheduler invokes pod-doctor’s own ${what} function (the target grants its versions too).`,
  );
}

/** SendCommand on any instance id, allowed only by a tag condition naming a configured cluster. */
export function acknowledgeTaggedInstances(scope: IConstruct, arns: readonly string[], tags: readonly string[]): void {
  acknowledgeWildcardResources(
    scope,
    arns,
    `Node instance ids are not known at deploy time; SendCommand on instances requires a tag naming a configured cluster (${tags.join(', ')}).`,
  );
}

// --- log group prerequisites -----------------------------------------------------------------------------

/** `log-group:NAME:*` is how CloudWatch Logs authorizes actions on one named group. */
export function acknowledgeLogGroupArns(role: IConstruct, arns: readonly string[]): void {
  acknowledgeWildcardResources(
    role,
    arns,
    'The log-group:NAME:* form is how CloudWatch Logs authorizes actions on the named group; each is a configured log group.',
  );
}

/** The findings of the CDK Provider framework's own relay function (built by aws-cdk-lib). */
export function acknowledgeProviderFramework(provider: IConstruct, onEventHandler: IFunction): void {
  const relay = 'The CDK custom resource Provider framework relay function, built by aws-cdk-lib';
  const reasons = {
    'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]': `${relay}: its role has the basic execution policy (its own logs) only.`,
    'Serverless::Serverless-LambdaDLQ': `${relay}: CloudFormation invokes it synchronously and gets the failure; there is nothing to dead-letter.`,
    'Serverless::Serverless-LambdaDefaultMemorySize': `${relay}: it forwards one request per deployment; the default memory is enough.`,
    'Serverless::Serverless-LambdaTracing': `${relay}: it runs once per deployment; its log group records every call.`,
  };
  for (const [id, reason] of Object.entries(reasons)) acknowledge(provider, id, reason);
  acknowledgeWildcardResources(
    provider,
    [`${onEventHandler.functionArn}:*`],
    `${relay}: it invokes pod-doctor’s own custom resource function (any version).`,
  );
}

// --- notification channels --------------------------------------------------------------------------

/** The notices pipe invokes its enrichment function synchronously and keeps what failed itself. */
export function acknowledgePipeEnrichment(fn: IConstruct): void {
  acknowledge(
    fn,
    'Serverless::Serverless-LambdaDLQ',
    'Invoked synchronously by the notices pipe as its enrichment: the pipe retries a failed record and then keeps it in its own dead-letter queue.',
  );
}

/** A function reads summaries under one prefix of the evidence bucket (keys named by incident-table rows). */
export function acknowledgeEvidenceRead(role: IConstruct, bucket: IBucket, prefix: string): void {
  acknowledgeWildcardResources(
    role,
    [bucket.arnForObjects(`${prefix}/*`)],
    `Summaries are read by the key their history row names, under ${prefix}/ (GetObject only, no listing); the prefix is the narrowest scope.`,
  );
}

/** The notices pipe's stream read: ListStreams has no resource type. */
export function acknowledgeStreamRead(role: IConstruct): void {
  acknowledgeWildcardResources(
    role,
    ['*'],
    'dynamodb:ListStreams has no resource type (Service Authorization Reference); the stream reads themselves are scoped to the incident table stream.',
  );
}

// --- fleet -----------------------------------------------------------------------------------------

/** The spoke StackSet's org-readable asset bucket of one Region. */
export function acknowledgeSpokeAssets(bucket: IConstruct): void {
  acknowledge(
    bucket,
    'AwsSolutions::AwsSolutions-S1',
    'Holds only the spoke StackSet’s Lambda code, written by the deploy; CloudTrail data events cover reads if wanted',
  );
}

/**
 * cdk-stacksets copies the StackSet's file assets with aws-s3-deployment's BucketDeployment: CDK's own
 * singleton function (its runtime, managed policy and S3 grants are CDK's), invoked synchronously by
 * CloudFormation once per deploy. Every wildcard of its policy is acknowledged by name.
 */
export function acknowledgeAssetDeployment(stack: IConstruct): void {
  const why =
    'aws-s3-deployment BucketDeployment of the spoke StackSet assets (CDK’s singleton function, invoked synchronously by CloudFormation once per deploy)';
  const singletons = stack.node.findAll().filter((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  for (const fn of singletons) {
    for (const id of [
      'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'AwsSolutions::AwsSolutions-L1',
      'Serverless::Serverless-LambdaDLQ',
      'Serverless::Serverless-LambdaLatestVersion',
      'Serverless::Serverless-LambdaTracing',
      'Serverless::Serverless-LambdaDefaultMemorySize',
      'Serverless::Serverless-LambdaAsyncFailureDestination',
    ])
      acknowledge(fn, id, why);
    for (const policy of fn.node.findAll().filter((c): c is CfnPolicy => c instanceof CfnPolicy)) {
      const doc = (policy.policyDocument as PolicyDocument).toJSON() as {
        Statement: { Action: unknown; Resource: unknown }[];
      };
      for (const st of doc.Statement) {
        for (const a of ([] as unknown[])
          .concat(st.Action)
          .filter((x): x is string => typeof x === 'string' && x.includes('*')))
          acknowledge(policy, `AwsSolutions::AwsSolutions-IAM5[Action::${a}]`, why);
        const resources = ([] as unknown[])
          .concat(st.Resource)
          .filter((r) => JSON.stringify(Stack.of(policy).resolve(r)).includes('*'));
        acknowledgeWildcardResources(policy, resources as string[], why);
      }
    }
  }
}

/** An SQS event source mapping: Lambda supports no on-failure destination for SQS; the queue's redrive is it. */
export function acknowledgeSqsEventSource(mapping: IConstruct): void {
  acknowledge(
    mapping,
    'Serverless::Serverless-LambdaEventSourceMappingDestination',
    'An SQS event source takes no on-failure destination (Lambda supports it for streams and Kafka only); messages that fail maxReceiveCount times go to the queue’s dead-letter queue, which alarms.',
  );
}

/** Lambda creates, describes and deletes the network interfaces of a function placed in a VPC. */
export function acknowledgeNetworkInterfaces(role: IConstruct, interfaces: string): void {
  acknowledgeWildcardResources(
    role,
    [interfaces, '*'],
    'A function in a VPC: Lambda creates its network interfaces (ids not known before) with its role; ec2:DescribeNetworkInterfaces and ec2:DescribeSubnets have no resource-level permission (https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html).',
  );
}
