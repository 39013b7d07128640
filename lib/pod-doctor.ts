import { CfnOutput, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { ArnPrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { type PodDoctorConfig, parseConfig } from './config.js';
import { AccountChecks } from './constructs/account-checks.js';
import { DeadLetterAlarms } from './constructs/dead-letter-alarms.js';
import { Detection } from './constructs/detection.js';
import { EvidenceBucket } from './constructs/evidence-bucket.js';
import { IncidentStore } from './constructs/incident-store.js';
import { IncidentWorkflow } from './constructs/incident-workflow.js';
import { KubernetesAccess } from './constructs/kubernetes-access.js';
import { NodeCommands } from './constructs/node-commands.js';
import { Notifications } from './constructs/notifications.js';
import { requireClustersInStackRegion, warnIamEventsNotSeen } from './regions.js';

/** Props of {@link PodDoctor}. */
export interface PodDoctorProps {
  /**
   * Validated configuration (see `parseConfig`).
   * @default - the built-in defaults: no clusters, observe-only except the in-place pause repair
   */
  readonly config?: PodDoctorConfig;
  /**
   * Removal policy of the audit trail (history table, evidence bucket, logs).
   * @default RemovalPolicy.RETAIN
   */
  readonly auditRemovalPolicy?: RemovalPolicy;
}

/**
 * pod-doctor in one construct: detection, incident workflow, node commands, notifications,
 * incident store and evidence bucket. Embed it in any stack.
 */
export class PodDoctor extends Construct {
  readonly config: PodDoctorConfig;
  readonly notifications: Notifications;
  readonly incidentStore: IncidentStore;
  readonly evidence: EvidenceBucket;
  readonly workflow: IncidentWorkflow;
  readonly detection: Detection;
  readonly killSwitch: StringParameter;
  readonly nodeCommands: NodeCommands;
  readonly checks: AccountChecks;
  /** Kubernetes API access of the configured clusters (absent without clusters). */
  readonly kubernetes?: KubernetesAccess;

  constructor(scope: Construct, id: string, props: PodDoctorProps = {}) {
    super(scope, id);
    const config = props.config ?? parseConfig({});
    this.config = config;
    requireClustersInStackRegion(this, config.clusters);
    warnIamEventsNotSeen(this, config.forwardIamEvents);
    const logRetention = config.logRetentionDays as RetentionDays;
    const removalPolicy = props.auditRemovalPolicy ?? RemovalPolicy.RETAIN;

    this.killSwitch = new StringParameter(this, 'KillSwitch', {
      parameterName: config.killSwitchParameterName,
      stringValue: 'off',
      description: 'pod-doctor kill switch: set to "on" to stop every automated action',
      allowedPattern: '^(on|off)$',
    });
    this.notifications = new Notifications(this, 'Notifications', { emails: config.notificationEmails });
    this.incidentStore = new IncidentStore(this, 'IncidentStore', { removalPolicy });
    this.evidence = new EvidenceBucket(this, 'Evidence', {
      retentionDays: config.evidenceRetentionDays,
      removalPolicy,
    });
    for (const arn of new Set(config.clusters.flatMap((c) => c.nodeRoleArns)))
      this.evidence.grantNodeUpload(new ArnPrincipal(arn));
    this.nodeCommands = new NodeCommands(this, 'NodeCommands');
    this.checks = new AccountChecks(this, 'Checks', {
      clusters: config.clusters,
      logRetention,
      changeIndex: this.incidentStore.table,
    });
    if (config.clusters.length > 0) {
      this.kubernetes = new KubernetesAccess(this, 'Kubernetes', { clusters: config.clusters, logRetention });
    }
    this.workflow = new IncidentWorkflow(this, 'Workflow', {
      kubernetes: this.kubernetes?.function,
      config,
      checks: this.checks,
      nodeCommands: this.nodeCommands,
      evidenceBucket: this.evidence.bucket,
      incidentTable: this.incidentStore.table,
      topic: this.notifications.topic,
      deliveryDeadLetterQueue: this.notifications.deadLetterQueue,
      approvalTimeout: Duration.minutes(config.limits.approvalTimeoutMinutes),
      verificationWindow: Duration.minutes(config.limits.verificationWindowMinutes),
      killSwitch: this.killSwitch,
      logRetention,
    });
    this.detection = new Detection(this, 'Detection', {
      clusters: config.clusters,
      incidentTable: this.incidentStore.table,
      evidenceBucket: this.evidence.bucket,
      historyRetentionDays: config.historyRetentionDays,
      trustedSandboxImages: config.trustedSandboxImages,
      logRetention,
      incidentWindowMinutes: config.limits.incidentWindowMinutes,
      workflow: this.workflow.stateMachine,
    });

    new DeadLetterAlarms(this, 'DeadLetterAlarms', {
      queues: [
        {
          id: 'Ingest',
          what: 'log lines or CloudTrail events the ingest function could not process',
          queue: this.detection.deadLetterQueue,
        },
        {
          id: 'Delivery',
          what: 'notifications that could not be delivered',
          queue: this.notifications.deadLetterQueue,
        },
      ],
      topic: this.notifications.topic,
    });

    new CfnOutput(this, 'KillSwitchParameterName', {
      value: this.killSwitch.parameterName,
      description: 'Set this SSM parameter to "on" to stop every pod-doctor action',
    });
    new CfnOutput(this, 'NotificationTopicArn', { value: this.notifications.topic.topicArn });
    new CfnOutput(this, 'EvidenceBucketName', { value: this.evidence.bucket.bucketName });
    new CfnOutput(this, 'StateMachineArn', { value: this.workflow.stateMachine.stateMachineArn });
  }
}
