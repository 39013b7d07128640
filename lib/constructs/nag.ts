import { type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Every cdk-nag acknowledgement pod-doctor makes, each with its reason, in one place. Constructs call
 * these functions; no other module calls `Validations.of(...).acknowledge`.
 */

function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** An `AwsSolutions-IAM5` finding on one wildcard resource (as cdk-nag prints it). */
function acknowledgeWildcard(scope: IConstruct, resource: string, reason: string): void {
  acknowledge(scope, `AwsSolutions::AwsSolutions-IAM5[Resource::${resource}]`, reason);
}

/** How cdk-nag prints a region in a finding id: the literal, or the pseudo parameter. */
export function nagRegion(scope: IConstruct, region?: string): string {
  const stack = Stack.of(scope);
  return region ?? (Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region);
}

/** How cdk-nag prints the `Arn` attribute of a resource in a finding id. */
function nagArn(resource: IConstruct): string {
  return `<${Stack.of(resource).getLogicalId(resource.node.defaultChild as CfnElement)}.Arn>`;
}

/** An EKS ARN of a configured cluster's sub-resources, as cdk-nag prints it. */
function nagEksArn(scope: IConstruct, resource: string, cluster: ClusterRef): string {
  return `arn:<AWS::Partition>:eks:${nagRegion(scope, cluster.region)}:<AWS::AccountId>:${resource}/${cluster.name}/*`;
}

/** A cluster as the acknowledgements need it. */
export interface ClusterRef {
  readonly name: string;
  readonly region?: string;
}

// --- every pod-doctor function -------------------------------------------------------------------

/** Findings every pod-doctor function raises: X-Ray wildcard, pinned runtime, DLQ when synchronous. */
export function acknowledgeFunction(fn: IConstruct, role: IConstruct, synchronousOnly: boolean): void {
  acknowledgeWildcard(
    role,
    '*',
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
export function acknowledgeEvidencePrefix(role: IConstruct, bucket: IConstruct, prefix: string, what: string): void {
  acknowledgeWildcard(
    role,
    `${nagArn(bucket)}/${prefix}/*`,
    `${what} are written under ${prefix}/ with generated keys; the prefix is the narrowest scope.`,
  );
}

// --- detection and checks -----------------------------------------------------------------------------

const DESCRIBE_ONLY =
  'EC2 Describe*/Get* read calls and CloudTrail LookupEvents do not support resource-level permissions.';
const IAM_READ =
  'Node and aws-node roles (and their managed policies, including AWS managed ones) are created outside this stack; the checks read whichever role a node uses.';

/** Read calls without resource-level permissions (EC2 Describe*, CloudTrail LookupEvents, ...). */
export function acknowledgeDescribeOnly(role: IConstruct, reason = DESCRIBE_ONLY): void {
  acknowledgeWildcard(role, '*', reason);
}

/** Node instance profiles belong to node groups created outside the stack. */
export function acknowledgeInstanceProfiles(role: IConstruct): void {
  acknowledgeWildcard(
    role,
    'arn:<AWS::Partition>:iam::<AWS::AccountId>:instance-profile/*',
    'Node instance profiles are created by node groups outside this stack; their names are not known at deploy time.',
  );
}

/** The IAM check reads any role and policy a node or aws-node may use. */
export function acknowledgeIamRead(role: IConstruct): void {
  for (const r of ['role', 'policy'])
    acknowledgeWildcard(role, `arn:<AWS::Partition>:iam::<AWS::AccountId>:${r}/*`, IAM_READ);
  acknowledgeWildcard(role, 'arn:aws:iam::aws:policy/*', IAM_READ);
}

/** The ECR check reads repository metadata of any repository pods pull from. */
export function acknowledgeAnyRepository(role: IConstruct): void {
  acknowledgeWildcard(
    role,
    'arn:aws:ecr:*:*:repository/*',
    'Pods pull from any repository, in any region and (cross-account) any registry; read-only metadata calls.',
  );
}

const EKS_REASONS = {
  addon: 'Add-on ARNs end in a generated id; scoped to the configured cluster.',
  podidentityassociation: 'Association ids are generated; scoped to the configured cluster.',
  nodegroup: 'Node group ARNs end in a generated id; scoped to the configured cluster.',
} as const;

/** EKS sub-resources (add-ons, node groups, Pod Identity associations) of the configured clusters. */
export function acknowledgeClusterResources(
  role: IConstruct,
  clusters: readonly ClusterRef[],
  resources: readonly (keyof typeof EKS_REASONS)[],
  reason?: string,
): void {
  for (const c of clusters)
    for (const r of resources) acknowledgeWildcard(role, nagEksArn(role, r, c), reason ?? EKS_REASONS[r]);
}

// --- workflow -----------------------------------------------------------------------------------------

/** The HMAC key behind approval links is replaced, not rotated. */
export function acknowledgeApprovalKey(secret: IConstruct): void {
  acknowledge(
    secret,
    'AwsSolutions::AwsSolutions-SMG4',
    'HMAC signing key for approval links that expire within the approval timeout; rotate it by replacing the secret (pending approvals then simply expire).',
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

/** The state machine's wildcards: logs/X-Ray/GetCommandInvocation, tagged instances, function versions. */
export function acknowledgeStateMachine(stateMachine: IConstruct, invoked: readonly IConstruct[]): void {
  acknowledgeWildcard(
    stateMachine,
    '*',
    'Step Functions log delivery and X-Ray actions, and ssm:GetCommandInvocation, do not support resource-level permissions.',
  );
  acknowledgeWildcard(
    stateMachine,
    `arn:<AWS::Partition>:ec2:${nagRegion(stateMachine)}:<AWS::AccountId>:instance/*`,
    'Node instance ids are not known at deploy time; SendCommand on instances is conditioned on the eks:cluster-name tag of the configured clusters.',
  );
  for (const f of invoked) {
    // LambdaInvoke grants invoke on the function and its versions (":*").
    acknowledgeWildcard(stateMachine, `${nagArn(f)}:*`, 'Invoking any version of pod-doctor’s own workflow function.');
  }
}
