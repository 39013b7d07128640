import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type CfnEventBus, EventBus, type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { type IRole, OrganizationPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type FleetMember, SPOKE_SOURCE } from '../../../lambdas/core/fleet/fleet.js';
import { CLOUDTRAIL_RULES } from '../../event-patterns.js';
import type { ConfigStore } from '../config-store.js';
import { createDeadLetterQueue } from '../dead-letter-queue.js';
import { acknowledgeEvidencePrefix } from '../nag.js';
import { lambdaEntry } from '../paths.js';
import { PodDoctorFunction } from '../pod-doctor-function.js';
import { grantRowWrites } from '../table-rows.js';

/** Props of {@link FleetBus}. */
export interface FleetBusProps {
  /** The organization whose accounts may put events (`aws:PrincipalOrgID`), e.g. `o-a1b2c3d4e5`. */
  readonly organizationId: string;
  /** Accounts and Regions the hub acts in; an event from anyone else is refused and kept. */
  readonly members: readonly FleetMember[];
  readonly incidentTable: ITableV2;
  /** Where the intake reads the deployment's configuration (trusted sandbox images). */
  readonly configStore: ConfigStore;
  readonly evidenceBucket: IBucket;
  readonly workflow: IStateMachine;
  readonly historyRetentionDays: number;
  readonly incidentWindowMinutes: number;
  readonly logRetention: RetentionDays;
}

/**
 * The hub's custom event bus: its policy admits PutEvents from the organization only, one rule takes
 * the spokes' incident candidates and the members' CloudTrail events to the intake function, which
 * refuses an event whose claims are not its sender's (the `account` EventBridge stamped).
 */
export class FleetBus extends Construct {
  readonly bus: IEventBus;
  /** The bus's name as CDK generated it (a plain string: spokes in other accounts build its ARN from it). */
  readonly busName: string;
  readonly intake: IFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: FleetBusProps) {
    super(scope, id);
    const bus = new EventBus(this, 'Bus', {
      description: 'pod-doctor fleet: spokes put incidents and CloudTrail events here',
    });
    // Principal * with the aws:PrincipalOrgID condition: the documented way to admit one organization.
    bus.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OrganizationMayPutEvents',
        actions: ['events:PutEvents'],
        resources: [bus.eventBusArn],
        principals: [new OrganizationPrincipal(props.organizationId)],
      }),
    );
    this.busName = (bus.node.defaultChild as CfnEventBus).name;
    this.bus = bus;
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    const intake = new PodDoctorFunction(this, 'Intake', {
      entry: lambdaEntry('fleet-intake'),
      description: 'pod-doctor fleet: admit what spokes send (claimed account = sender) and open incidents',
      logRetention: props.logRetention,
      timeout: Duration.seconds(60),
      memorySize: 512,
      deadLetterQueue: this.deadLetterQueue,
      onFailure: new SqsDestination(this.deadLetterQueue),
      retryAttempts: 2,
      environment: {
        INCIDENT_TABLE_NAME: props.incidentTable.tableName,
        EVIDENCE_BUCKET_NAME: props.evidenceBucket.bucketName,
        INCIDENT_WINDOW_MINUTES: String(props.incidentWindowMinutes),
        HISTORY_RETENTION_DAYS: String(props.historyRetentionDays),
        WORKFLOW_ARN: props.workflow.stateMachineArn,
        FLEET_MEMBERS: JSON.stringify(props.members),
      },
    });
    props.configStore.attach(intake);
    grantRowWrites(
      props.incidentTable,
      intake,
      ['incidents', 'budgets', 'changes'],
      ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    );
    intake.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:PutObject'], resources: [props.evidenceBucket.arnForObjects('rejected/*')] }),
    );
    acknowledgeEvidencePrefix(
      intake.role as IRole,
      props.evidenceBucket,
      'rejected',
      'Refused and unreadable fleet events',
    );
    props.workflow.grantStartExecution(intake);
    this.intake = intake;
    new Rule(this, 'FromSpokes', {
      eventBus: bus,
      description: 'pod-doctor fleet: spokes’ incident candidates and members’ CloudTrail events to the intake',
      eventPattern: { source: [SPOKE_SOURCE, ...new Set(CLOUDTRAIL_RULES.flatMap((r) => r.pattern.source ?? []))] },
      targets: [
        new LambdaFunction(intake, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: 4,
          maxEventAge: Duration.hours(2),
        }),
      ],
    });
  }
}
