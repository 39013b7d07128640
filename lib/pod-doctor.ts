import { Aspects, Duration, RemovalPolicies, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type Metric,
  type MetricOptions,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ArnPrincipal, Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { type IStringParameter, StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { withContextVpcs } from './cluster-vpc-context.js';
import type { PodDoctorConfig } from './config.js';
import { AccountChecks } from './constructs/account-checks.js';
import { hasChannels, hasChat } from './constructs/channels/channel-props.js';
import { Channels } from './constructs/channels/channels.js';
import { ClusterReadAlarm } from './constructs/cluster-read-alarm.js';
import { ConfigIntegrityAlarm } from './constructs/config-integrity-alarm.js';
import { ConfigStore } from './constructs/config-store.js';
import { DeadLetterAlarms } from './constructs/dead-letter-alarms.js';
import { Detection } from './constructs/detection.js';
import { EvidenceBucket } from './constructs/evidence-bucket.js';
import { IncidentStore } from './constructs/incident-store.js';
import { IncidentWorkflow } from './constructs/incident-workflow.js';
import type { KubernetesAccess, KubernetesSweep } from './constructs/kubernetes-access.js';
import type { KubernetesEvents } from './constructs/kubernetes-events.js';
import { NodeCommands } from './constructs/node-commands.js';
import { Notifications } from './constructs/notifications.js';
import { OperationsDashboard } from './constructs/operations-dashboard.js';
import { estimatePolicyArnSize } from './constructs/pod-doctor-function.js';
import { EnvironmentSizeCheck } from './constructs/resolved-size.js';
import { SignalCheck } from './constructs/signal-check.js';
import { type ClustersInVpcs, kubernetesFunctions, scheduledReaders } from './kubernetes-reach.js';
import { configFromProps, type PodDoctorProps } from './pod-doctor-props.js';
import { requireClustersInStackRegion, requirePullThroughSecretsHere, warnIamEventsNotSeen } from './regions.js';

export type { ClusterRemediation, PodDoctorCluster, PodDoctorProps } from './pod-doctor-props.js';

/** What a {@link PodDoctor} built from a validated configuration takes besides it: resources an app passes in. */
export type PodDoctorResources = Pick<
  PodDoctorProps,
  'topic' | 'encryptionKey' | 'channels' | 'incidentTable' | 'evidenceBucket' | 'removalPolicy'
>;

/** Configurations {@link PodDoctor.fromConfig} validated, by the props object it built. */
const VALIDATED = new WeakMap<PodDoctorProps, PodDoctorConfig>();

/** Resource types `removalPolicy` covers: the audit trail pod-doctor creates. */
const AUDIT_TRAIL_TYPES = ['AWS::Logs::LogGroup', 'AWS::DynamoDB::GlobalTable', 'AWS::S3::Bucket'];

/** Evidence objects pod-doctor writes (summaries) and the nodes upload (log bundles). */
const INCIDENT_OBJECTS = 'incidents/*';
const NODE_OBJECTS = 'nodes/*';

/**
 * pod-doctor in one construct: detection, incident workflow, node commands, notifications,
 * incident store and evidence bucket. Embed it in any stack, as often as you like.
 */
export class PodDoctor extends Construct {
  /** The validated configuration the props stand for (what the functions read). */
  readonly config: PodDoctorConfig;

  /** The clusters pod-doctor reaches through their Kubernetes API (`kubernetesApi`, default true). */
  private get apiClusters(): PodDoctorConfig['clusters'] {
    return this.config.clusters.filter((c) => c.kubernetesApi);
  }
  /** Topic of summaries, approval requests, failure notices and alarms. */
  readonly topic: ITopic;
  /** Incident history, locks and action bookkeeping. */
  readonly incidentTable: ITableV2;
  /** Evidence: summaries, check results, command outputs, node log bundles. */
  readonly evidenceBucket: IBucket;
  /** The incident workflow. */
  readonly stateMachine: IStateMachine;
  /** Value `on` stops every action. */
  readonly killSwitch: IStringParameter;
  /** Records and events the ingest function could not process. */
  readonly ingestDeadLetterQueue: IQueue;
  /** Notifications that could not be delivered. */
  readonly deliveryDeadLetterQueue: IQueue;
  /**
   * Alarms on both dead-letter queues, failed executions, verification failures and class storms (and
   * undelivered channel notices); they notify the topic.
   */
  readonly alarms: readonly Alarm[];
  /** The incident workflow (the state machine and its functions). @internal */
  readonly workflow: IncidentWorkflow;
  /** Detection: log subscriptions, CloudTrail rules and the ingest function. @internal */
  readonly detection: Detection;
  /** The SSM documents that probe and repair nodes. @internal */
  readonly nodeCommands: NodeCommands;
  /** The read-only account check functions. @internal */
  readonly checks: AccountChecks;
  /** Kubernetes API access of the configured clusters (absent without clusters). @internal */
  readonly kubernetes?: KubernetesAccess;
  /** The scheduled sweep for stuck pods that produced no log line (absent without clusters). @internal */
  readonly kubernetesSweep?: KubernetesSweep;
  /** Chat channels and pagers (absent when `channels` lists none). @internal */
  readonly channels?: Channels;
  /** The deployment's CloudWatch dashboard and its alarms (verification failures, class storms). @internal */
  readonly operations: OperationsDashboard;
  /** Where every function reads the deployment's configuration (a document in the incident table). @internal */
  readonly configStore: ConfigStore;
  /** The Kubernetes Warning events reader, every minute (absent without clusters). @internal */
  readonly kubernetesEvents?: KubernetesEvents;
  /** The hourly check of each cluster's detection signals (absent without clusters). @internal */
  readonly signalCheck?: SignalCheck;
  /** Per VPC of clusters reached from inside it (`clusters[].vpc`): its placement and functions. @internal */
  readonly inVpcs: readonly ClustersInVpcs[];

  /**
   * A pod-doctor from a configuration already validated by `parseConfig` (the `pod-doctor` key of
   * cdk.json, as `PodDoctorStack` reads it), with the resources an app passes in besides. The
   * configuration goes one way: cdk.json → configuration → constructs, and props → configuration →
   * constructs; never configuration → props → configuration.
   */
  static fromConfig(
    scope: Construct,
    id: string,
    config: PodDoctorConfig,
    resources: PodDoctorResources = {},
  ): PodDoctor {
    const props: PodDoctorProps = { ...resources };
    VALIDATED.set(props, config);
    return new PodDoctor(scope, id, props);
  }

  constructor(scope: Construct, id: string, props: PodDoctorProps = {}) {
    super(scope, id);
    estimatePolicyArnSize(this);
    const validated = VALIDATED.get(props) ?? configFromProps(props);
    const config = { ...validated, clusters: withContextVpcs(this, validated.clusters) };
    this.config = config;
    requireClustersInStackRegion(this, config.clusters);
    requirePullThroughSecretsHere(this, config.clusters);
    warnIamEventsNotSeen(this, config.forwardIamEvents !== false);
    const logRetention = config.logRetentionDays as RetentionDays;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.killSwitch = new StringParameter(this, 'KillSwitch', {
      parameterName: config.killSwitchParameterName,
      stringValue: 'off',
      description: 'pod-doctor kill switch: set to "on" to stop every automated action',
      allowedPattern: '^(on|off)$',
    });
    const notifications = new Notifications(this, 'Notifications', {
      emails: config.notificationEmails,
      topic: props.topic,
      encryptionKey: props.encryptionKey,
    });
    this.topic = notifications.topic;
    this.deliveryDeadLetterQueue = notifications.deadLetterQueue;
    const speaks = hasChannels(props.channels);
    this.incidentTable =
      props.incidentTable ?? new IncidentStore(this, 'IncidentStore', { removalPolicy, stream: speaks }).table;
    this.evidenceBucket = props.evidenceBucket ?? this.createEvidenceBucket(removalPolicy);
    if (speaks && props.channels)
      this.channels = new Channels(this, 'Channels', {
        channels: props.channels,
        incidentTable: this.incidentTable,
        evidenceBucket: this.evidenceBucket,
        alarmTopic: this.topic,
        key: notifications.key,
        logRetention,
      });
    this.nodeCommands = new NodeCommands(this, 'NodeCommands');
    this.checks = new AccountChecks(this, 'Checks', {
      clusters: config.clusters,
      logRetention,
      changeIndex: this.incidentTable,
    });
    const k8s = kubernetesFunctions(this, config.clusters, logRetention);
    ({ outside: this.kubernetes, inVpcs: this.inVpcs } = k8s);
    this.configStore = new ConfigStore(this, 'Config', {
      table: this.incidentTable,
      document: this.configDocument(),
      logRetention,
    });
    this.workflow = this.createWorkflow(logRetention, hasChat(props.channels));
    this.stateMachine = this.workflow.stateMachine;
    this.detection = this.createDetection(logRetention);
    ({ sweep: this.kubernetesSweep, events: this.kubernetesEvents } =
      this.createScheduledReaders(k8s.outsideClusters, logRetention) ?? {});
    // Logs and CloudTrail are checked on every cluster, events where the API is reached.
    if (config.clusters.length > 0) this.signalCheck = this.createSignalCheck(logRetention);
    this.ingestDeadLetterQueue = this.detection.deadLetterQueue;
    const alarms = this.createAlarms();
    this.operations = new OperationsDashboard(this, 'Operations', {
      stateMachine: this.stateMachine,
      alarmTopic: this.topic,
      approvalTimeout: Duration.minutes(config.limits.approvalTimeoutMinutes),
      alarms,
    });
    this.alarms = [...alarms, this.operations.verificationFailures, ...this.operations.classStorms];
    // Every log group, table and bucket created inside, including those of nested constructs.
    RemovalPolicies.of(this).apply(removalPolicy, { applyToResourceTypes: AUDIT_TRAIL_TYPES });
    // Lambda's 4 KB environment limit, checked at synth instead of failing the deployment.
    Aspects.of(this).add(new EnvironmentSizeCheck());
  }

  /** The evidence bucket, which the node roles of the configured clusters may upload log bundles to. */
  private createEvidenceBucket(removalPolicy: RemovalPolicy): IBucket {
    const evidence = new EvidenceBucket(this, 'Evidence', {
      retentionDays: this.config.evidenceRetentionDays,
      removalPolicy,
    });
    // A bucket you bring keeps its own policy: only the one created here grants the node roles.
    for (const arn of new Set(this.config.clusters.flatMap((c) => c.nodeRoleArns)))
      evidence.grantNodeUpload(new ArnPrincipal(arn));
    return evidence.bucket;
  }

  /** The document every function reads (workflowConfigSchema), references resolved at deploy. */
  private configDocument(): string {
    const { config } = this;
    const docs = this.nodeCommands.documents;
    return Stack.of(this).toJsonString({
      clusters: config.clusters.map((c) => ({
        name: c.name,
        region: c.region,
        logGroups: c.logGroups,
        remediation: c.remediation,
        nodeRoleArns: c.nodeRoleArns,
        ...(c.kubernetesApi ? {} : { kubernetesApi: false }),
        ...(c.kubernetesApi && c.vpc ? { reach: c.vpc.vpcId } : {}),
      })),
      remedies: config.remedies,
      clusterAccess: this.apiClusters.length > 0,
      modes: config.modes,
      limits: config.limits,
      ingestLimits: config.ingestLimits,
      killSwitchParameterName: this.killSwitch.parameterName,
      documents: {
        probeNode: docs.probeNode.ref,
        repairPauseImage: docs.repairPauseImage.ref,
        collectLogs: docs.collectLogs.ref,
        restartRuntime: docs.restartRuntime.ref,
      },
      historyRetentionDays: config.historyRetentionDays,
      evidenceBucket: this.evidenceBucket.bucketName,
      tableName: this.incidentTable.tableName,
      trustedSandboxImages: config.trustedSandboxImages,
    });
  }

  private createWorkflow(logRetention: RetentionDays, chatApprovals: boolean): IncidentWorkflow {
    const { config } = this;
    return new IncidentWorkflow(this, 'Workflow', {
      kubernetes: this.kubernetes?.function,
      inVpcs: this.inVpcs.map((v) => ({ reach: v.reach, kubernetes: v.kubernetes.function })),
      doorPlacements: this.inVpcs.map((v) => ({ reach: v.reach, placement: v.placement })),
      config,
      configStore: this.configStore,
      checks: this.checks,
      nodeCommands: this.nodeCommands,
      evidenceBucket: this.evidenceBucket,
      incidentTable: this.incidentTable,
      topic: this.topic,
      deliveryDeadLetterQueue: this.deliveryDeadLetterQueue,
      approvalTimeout: Duration.minutes(config.limits.approvalTimeoutMinutes),
      verificationWindow: Duration.minutes(config.limits.verificationWindowMinutes),
      killSwitch: this.killSwitch,
      logRetention,
      chatApprovals,
    });
  }

  /** Node log lines into incidents: the log subscriptions and the ingest function that starts the workflow. */
  private createDetection(logRetention: RetentionDays): Detection {
    const { config } = this;
    return new Detection(this, 'Detection', {
      clusters: config.clusters,
      configStore: this.configStore,
      incidentTable: this.incidentTable,
      evidenceBucket: this.evidenceBucket,
      historyRetentionDays: config.historyRetentionDays,
      logRetention,
      incidentWindowMinutes: config.limits.incidentWindowMinutes,
      workflow: this.stateMachine,
      topic: this.topic,
    });
  }

  /** The sweep and the events reader outside any VPC (its clusters) and a copy in each VPC of `inVpcs`. */
  private createScheduledReaders(
    outsideClusters: PodDoctorConfig['clusters'],
    logRetention: RetentionDays,
  ): ReturnType<typeof scheduledReaders> | undefined {
    const readers = {
      config: this.config,
      configStore: this.configStore,
      incidentTable: this.incidentTable,
      evidenceBucket: this.evidenceBucket,
      workflow: this.stateMachine,
      logRetention,
      topic: this.topic,
    };
    const outside = outsideClusters.length > 0 ? scheduledReaders(this, outsideClusters, readers) : undefined;
    for (const v of this.inVpcs)
      scheduledReaders(this, v.reach.clusters, readers, { suffix: `-${v.reach.vpcId}`, placement: v.placement });
    return outside;
  }

  private createSignalCheck(logRetention: RetentionDays): SignalCheck {
    return new SignalCheck(this, 'SignalCheck', {
      clusters: this.config.clusters,
      configStore: this.configStore,
      incidentTable: this.incidentTable,
      topic: this.topic,
      logRetention,
    });
  }

  /** Lets `grantee` set the kill switch (`on` stops every action). */
  grantKillSwitch(grantee: IGrantable): Grant {
    return this.killSwitch.grantWrite(grantee);
  }

  /** Lets `grantee` read incident evidence (summaries under `incidents/`, node log bundles under `nodes/`). */
  grantReadEvidence(grantee: IGrantable): Grant {
    return this.evidenceBucket
      .grantRead(grantee, INCIDENT_OBJECTS)
      .combine(this.evidenceBucket.grantRead(grantee, NODE_OBJECTS));
  }

  /**
   * Lets nodes (their role) upload the log bundles `collect-logs.sh` writes, each node under its own
   * `nodes/${aws:userid}/` only (role id and instance id: a node cannot write another's).
   */
  grantNodeLogUpload(nodeRole: IGrantable): Grant {
    return Grant.addToPrincipal({
      grantee: nodeRole,
      actions: ['s3:PutObject'],
      resourceArns: [this.evidenceBucket.arnForObjects(EvidenceBucket.NODE_UPLOADS)],
    });
  }

  /** Lets `grantee` read the incident history. */
  grantReadHistory(grantee: IGrantable): Grant {
    return this.incidentTable.grantReadData(grantee);
  }

  /** Failed incident workflow executions (Sum per period). */
  metricFailedExecutions(props?: MetricOptions): Metric {
    return this.stateMachine.metricFailed(props);
  }

  /** Messages waiting in the ingest dead-letter queue (Maximum per period). */
  metricIngestDeadLetterMessages(props?: MetricOptions): Metric {
    return this.ingestDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', ...props });
  }

  /** Messages waiting in the delivery dead-letter queue (Maximum per period). */
  metricDeliveryDeadLetterMessages(props?: MetricOptions): Metric {
    return this.deliveryDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', ...props });
  }

  private createAlarms(): Alarm[] {
    const deadLetters = new DeadLetterAlarms(this, 'DeadLetterAlarms', {
      queues: [
        {
          id: 'Ingest',
          what: 'log lines or CloudTrail events the ingest function could not process',
          queue: this.ingestDeadLetterQueue,
        },
        { id: 'Delivery', what: 'notifications that could not be delivered', queue: this.deliveryDeadLetterQueue },
        {
          id: 'CommandEvents',
          what: "node commands' status-change events the command-wait function could not take (the wait ends by its timeout)",
          queue: this.workflow.commandEventsDeadLetterQueue,
        },
      ],
      topic: this.topic,
    });
    const failed = new Alarm(this, 'FailedExecutionsAlarm', {
      alarmDescription: 'pod-doctor: an incident workflow execution failed; its history says where',
      metric: this.metricFailedExecutions({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    failed.addAlarmAction(new SnsAction(this.topic));
    // A function read a configuration document other than the one this deployment pinned (and ran observe-only).
    const tampered = new ConfigIntegrityAlarm(this, 'ConfigIntegrityAlarm', { topic: this.topic }).alarm;
    const clusterReads = this.apiClusters.length
      ? [new ClusterReadAlarm(this, 'ClusterReadAlarm', { topic: this.topic }).alarm]
      : [];
    return [...deadLetters.alarms, failed, tampered, ...clusterReads, ...(this.channels?.alarms.alarms ?? [])];
  }
}
