import { Aws, Duration } from 'aws-cdk-lib';
import { type CfnRule, EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { EventBus as EventBusTarget } from 'aws-cdk-lib/aws-events-targets';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { FilterPattern, LogGroup, RetentionDays, SubscriptionFilter } from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SPOKE_SOURCE } from '../lambdas/core/fleet/fleet.js';
import { spokeDocumentName } from '../lambdas/core/fleet/fleet-reach.js';
import { createDeadLetterQueue } from './constructs/dead-letter-queue.js';
import { SUBSCRIPTION_FILTER_PATTERN } from './constructs/detection.js';
import { SpokeDoorRole } from './constructs/fleet/spoke-door-role.js';
import { SpokeRole } from './constructs/fleet/spoke-role.js';
import { NodeCommands } from './constructs/node-commands.js';
import { lambdaEntry } from './constructs/paths.js';
import { PodDoctorFunction } from './constructs/pod-doctor-function.js';
import { CLOUDTRAIL_RULES } from './event-patterns.js';

/** One cluster of the member account whose node log groups the spoke subscribes. */
export interface SpokeCluster {
  /** EKS cluster name. */
  readonly name: string;
  /** Log groups (dataplane, ipamd, ...) to subscribe; they exist before the spoke is deployed. */
  readonly logGroups: readonly string[];
}

/** Props of {@link PodDoctorSpoke}. */
export interface PodDoctorSpokeProps {
  /** The fleet's name (the hub's and every spoke's): lower-case letters, digits, hyphens. */
  readonly fleet: string;
  /** The hub's account. */
  readonly hubAccount: string;
  /** ARN of the hub's fleet bus (`PodDoctorHub.bus.eventBusArn`, a string across accounts). */
  readonly hubBusArn: string;
  /** The organization of hub and members (`o-…`). */
  readonly organizationId: string;
  /**
   * Clusters of this account and Region whose log groups are subscribed.
   * @default [] (CloudTrail events only; add clusters with a plain CDK spoke or a subscription of your own)
   */
  readonly clusters?: readonly SpokeCluster[];
  /**
   * Retention of the spoke's function logs.
   * @default RetentionDays.THREE_MONTHS
   */
  readonly logRetention?: RetentionDays;
}

/**
 * pod-doctor in a member account and Region: the signals (log subscriptions into an ingest that
 * classifies and forwards incident candidates; CloudTrail rules) go to the hub's bus, each rule with
 * its own role; the role the hub's checks assume here (reads), and the role only the hub's door
 * assumes (Run Command with pod-doctor's documents on the clusters' nodes). Nothing here decides.
 */
export class PodDoctorSpoke extends Construct {
  /** The role the hub's checks assume in this account and Region (reads only). */
  readonly role: IRole;
  /** The role the hub's door assumes here: Run Command on the clusters' nodes, nothing else that writes. */
  readonly doorRole: IRole;
  /** pod-doctor's documents in this account and Region, by their fixed names. @internal */
  readonly nodeCommands: NodeCommands;
  /** Classifies this account's log lines and puts the candidates on the account's default bus. */
  readonly ingest: IFunction;
  /** Log records the ingest could not forward. */
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: PodDoctorSpokeProps) {
    super(scope, id);
    this.role = new SpokeRole(this, 'HubAccess', props).role;
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    const clusters = props.clusters ?? [];
    this.nodeCommands = new NodeCommands(this, 'NodeCommands', (c) => spokeDocumentName(props.fleet, c));
    this.doorRole = new SpokeDoorRole(this, 'DoorAccess', {
      ...props,
      clusters: clusters.map((c) => c.name),
      nodeCommands: this.nodeCommands,
    }).role;
    const ingest = new PodDoctorFunction(this, 'Ingest', {
      entry: lambdaEntry('spoke-ingest'),
      description: 'pod-doctor spoke: classify node log lines, send incident candidates to the hub',
      logRetention: props.logRetention ?? RetentionDays.THREE_MONTHS,
      timeout: Duration.seconds(60),
      memorySize: 512,
      deadLetterQueue: this.deadLetterQueue,
      onFailure: new SqsDestination(this.deadLetterQueue),
      retryAttempts: 2,
      environment: {
        SPOKE_ACCOUNT: Aws.ACCOUNT_ID,
        LOG_GROUP_CLUSTERS: JSON.stringify(
          Object.fromEntries(clusters.flatMap((c) => c.logGroups.map((g) => [g, c.name]))),
        ),
      },
    });
    const defaultBus = EventBus.fromEventBusName(this, 'DefaultBus', 'default');
    ingest.addToRolePolicy(
      new PolicyStatement({
        actions: ['events:PutEvents'],
        resources: [defaultBus.eventBusArn],
        // events:source is multivalued (one value per entry): every entry's source, and at least one.
        conditions: {
          'ForAllValues:StringEquals': { 'events:source': [SPOKE_SOURCE] },
          Null: { 'events:source': 'false' },
        },
      }),
    );
    this.ingest = ingest;
    this.forwardToHub(props);
    for (const cluster of clusters)
      for (const [i, name] of cluster.logGroups.entries())
        new SubscriptionFilter(this, `${cluster.name}Subscription${i}`, {
          logGroup: LogGroup.fromLogGroupName(this, `${cluster.name}LogGroup${i}`, name),
          destination: new LambdaDestination(ingest),
          filterPattern: FilterPattern.literal(SUBSCRIPTION_FILTER_PATTERN),
        });
  }

  /** Rules on the account's default bus sending the spoke's candidates and the CloudTrail events to the hub. */
  private forwardToHub(props: PodDoctorSpokeProps): void {
    const hub = EventBus.fromEventBusArn(this, 'HubBus', props.hubBusArn);
    const target = () => new EventBusTarget(hub, { deadLetterQueue: this.deadLetterQueue });
    new Rule(this, 'CandidatesToHub', {
      description: 'pod-doctor spoke: incident candidates to the hub',
      eventPattern: { source: [SPOKE_SOURCE], account: [Aws.ACCOUNT_ID] },
      targets: [target()],
    });
    for (const spec of CLOUDTRAIL_RULES) {
      const rule = new Rule(this, spec.id, {
        description: `pod-doctor spoke: to the hub: ${spec.description.replace(/^pod-doctor: /, '')}`.slice(0, 512),
        eventPattern: spec.pattern,
        targets: [target()],
      });
      if (spec.readOnlyCalls)
        (rule.node.defaultChild as CfnRule).state = 'ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS';
    }
  }
}
