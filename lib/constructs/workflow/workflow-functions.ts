import { type Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { eksArn } from '../eks-arn.js';
import { acknowledgeClusterResources, acknowledgeEvidencePrefix, acknowledgeTopicKey } from '../nag.js';
import { grantRowWrites } from '../table-rows.js';
import type { ApprovalEndpoint } from './approval-endpoint.js';
import { type WorkflowFunctionSettings, workflowFunction } from './workflow-function.js';

/** Props of {@link WorkflowFunctions}. */
export interface WorkflowFunctionsProps extends WorkflowFunctionSettings {
  /** Clusters whose node groups the breaker may read. */
  readonly clusters: readonly { readonly name: string; readonly region?: string }[];
  /** Incident history, locks and action bookkeeping. */
  readonly incidentTable: ITableV2;
  /** Evidence bucket: summaries (JSON + Markdown). */
  readonly evidenceBucket: IBucket;
  /** Topic approval requests go to. */
  readonly topic: ITopic;
  /** Parameter whose value `on` stops every action. */
  readonly killSwitch: IStringParameter;
  /** The endpoint approval links point at. */
  readonly approval: ApprovalEndpoint;
  /** How long an approval request waits. */
  readonly approvalTimeout: Duration;
}

/**
 * The workflow's own Lambda functions (open, decide, verify, summarize, request approval), each with
 * only the permissions its step needs, none of which changes a node, the account or a cluster. The
 * account checks live in `AccountChecks`, the changes behind the door (`DoorFunction`).
 */
export class WorkflowFunctions extends Construct {
  readonly openIncident: IFunction;
  readonly decide: IFunction;
  readonly verify: IFunction;
  readonly summarize: IFunction;
  readonly requestApproval: IFunction;

  constructor(scope: Construct, id: string, props: WorkflowFunctionsProps) {
    super(scope, id);
    const table = props.incidentTable;
    const open = workflowFunction(
      this,
      'OpenIncidentFunction',
      'open-incident',
      'open an incident: lock, kill switch, mode, action history',
      props,
    );
    table.grant(open, 'dynamodb:GetItem', 'dynamodb:Query');
    grantRowWrites(table, open, ['locks'], ['dynamodb:PutItem']);
    props.killSwitch.grantRead(open);
    this.openIncident = open;
    this.decide = this.decideFunction(props);
    // Verification reads the node's own probe and the watched pods (in its input), no table.
    this.verify = workflowFunction(
      this,
      'VerifyFunction',
      'verify',
      "verify a repair on the node's own evidence (probe, pods)",
      props,
    );
    this.summarize = this.summarizeFunction(props);
    this.requestApproval = this.requestFunction(props);
  }

  /** All functions, for invoke grants and acknowledgements. */
  get all(): IFunction[] {
    return [this.openIncident, this.decide, this.verify, this.summarize, this.requestApproval];
  }

  private decideFunction(props: WorkflowFunctionsProps): IFunction {
    const stack = Stack.of(this);
    const fn = workflowFunction(
      this,
      'DecideFunction',
      'decide',
      'decide: findings and safety policy to a plan',
      props,
    );
    // The cooldown of the resolved instance (the incident may have named the node by DNS name), and
    // the breaker's count of resolved instances hit by the class (mark this one, count them).
    props.incidentTable.grant(fn, 'dynamodb:GetItem', 'dynamodb:Query');
    grantRowWrites(props.incidentTable, fn, ['activeNodes'], ['dynamodb:PutItem']);
    const nodegroupArns = props.clusters.map((c) => eksArn(stack, 'nodegroup', `${c.name}/*`, c.region));
    if (nodegroupArns.length) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['eks:DescribeNodegroup'], resources: nodegroupArns }));
      // The cluster security group (add-sg-rule's only source) is the cluster's own configuration.
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['eks:DescribeCluster'],
          resources: props.clusters.map((c) => eksArn(stack, 'cluster', c.name, c.region)),
        }),
      );
      acknowledgeClusterResources(
        fn.role as IRole,
        'nodegroup',
        nodegroupArns,
        'Node group ARNs end in a generated id; scoped to the configured cluster (breaker reads the node group size).',
      );
    }
    return fn;
  }

  private summarizeFunction(props: WorkflowFunctionsProps): IFunction {
    const fn = workflowFunction(
      this,
      'SummarizeFunction',
      'summarize',
      'summarize and record an incident (evidence, history, metrics)',
      props,
    );
    // History is append-only: new rows (PutItem, attribute_not_exists), no update or delete of them.
    grantRowWrites(props.incidentTable, fn, ['history'], ['dynamodb:PutItem']);
    // The lock it releases and the open row's close (the run's result).
    grantRowWrites(props.incidentTable, fn, ['locks', 'incidents'], ['dynamodb:UpdateItem']);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [props.evidenceBucket.arnForObjects('incidents/*')],
      }),
    );
    acknowledgeEvidencePrefix(fn.role as IRole, props.evidenceBucket, 'incidents', 'Summaries');
    return fn;
  }

  private requestFunction(props: WorkflowFunctionsProps): IFunction {
    const fn = workflowFunction(
      this,
      'ApprovalRequestFunction',
      'approval-request',
      'send an approval request with signed links',
      props,
      {
        ...props.approval.signingEnvironment,
        TOPIC_ARN: props.topic.topicArn,
        APPROVAL_TIMEOUT_MINUTES: String(props.approvalTimeout.toMinutes()),
      },
    );
    props.approval.grantSign(fn);
    props.topic.grantPublish(fn);
    acknowledgeTopicKey(fn.role as IRole);
    grantRowWrites(props.incidentTable, fn, ['approvals'], ['dynamodb:PutItem']);
    return fn;
  }
}
