import { Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { VpcPlacement } from './cluster-vpc.js';
import type { ConfigStore } from './config-store.js';
import { eksArn } from './eks-arn.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';
import { scheduleFunction } from './schedule.js';
import { grantRowWrites } from './table-rows.js';

/** The Kubernetes group pod-doctor's access entry maps its role to (bound by k8s/pod-doctor-rbac.yaml). */
export const POD_DOCTOR_KUBERNETES_GROUP = 'pod-doctor';
/**
 * The Kubernetes group of pod-doctor's actions (cordon, evict, restart aws-node, VPC CNI ConfigMap):
 * only the door's access entry maps to it (lib/constructs/door-function.ts).
 */
export const POD_DOCTOR_ACTIONS_GROUP = 'pod-doctor-actions';

/** Props of {@link KubernetesAccess}. */
export interface KubernetesAccessProps {
  /** Clusters (same account and region as the stack) whose Kubernetes API pod-doctor reads. */
  readonly clusters: readonly { readonly name: string }[];
  /** Retention of the function's logs. */
  readonly logRetention: RetentionDays;
  /**
   * Kubernetes group of the access entry; bind it with k8s/pod-doctor-rbac.yaml.
   * @default 'pod-doctor'
   */
  readonly kubernetesGroup?: string;
  /**
   * The VPC the function runs in, for clusters whose API server is reached from inside it.
   * @default - outside any VPC
   */
  readonly placement?: VpcPlacement;
}

/**
 * pod-doctor inside the cluster, read-only: one function that reads the Kubernetes API of each
 * configured cluster (stuck pods and their events, the node, aws-node, VPC CNI settings; verification
 * by pods starting), authenticated by an EKS access entry for its role. The entry maps the role to
 * the read group only and associates no EKS access policy: what it may do is exactly what
 * k8s/pod-doctor-rbac.yaml binds to that group (no Secrets, no writes). Every Kubernetes write is the
 * door's, through its own entry. CloudFormation refuses the entry for a cluster whose authentication
 * mode is CONFIG_MAP — at deploy time, with EKS's own message.
 */
export class KubernetesAccess extends Construct {
  /** The function that reads and acts through the clusters' Kubernetes API. */
  readonly function: IFunction;

  constructor(scope: Construct, id: string, props: KubernetesAccessProps) {
    super(scope, id);
    const fn = new PodDoctorFunction(this, 'Function', {
      entry: lambdaEntry('kubernetes'),
      description: 'pod-doctor: Kubernetes API of the configured clusters (inspect, verify; read-only)',
      logRetention: props.logRetention,
      timeout: Duration.minutes(15),
      memorySize: 512,
      synchronousOnly: true,
    });
    props.placement?.place(fn);
    grantClusterAccess(this, fn, props.clusters, [props.kubernetesGroup ?? POD_DOCTOR_KUBERNETES_GROUP]);
    this.function = fn;
  }
}

/** eks:DescribeCluster on the clusters and one STANDARD access entry per cluster for the function's role. */
export function grantClusterAccess(
  scope: Construct,
  fn: PodDoctorFunction,
  clusters: readonly { readonly name: string }[],
  groups: readonly string[] = [POD_DOCTOR_KUBERNETES_GROUP],
): void {
  const stack = Stack.of(scope);
  const clusterArns = clusters.map((c) => eksArn(stack, 'cluster', c.name));
  if (clusterArns.length > 0) {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['eks:DescribeCluster'], resources: clusterArns }));
  }
  clusters.forEach((c, i) => {
    new CfnAccessEntry(scope, `AccessEntry${i}`, {
      clusterName: c.name,
      principalArn: fn.role?.roleArn ?? '',
      type: 'STANDARD',
      kubernetesGroups: [...groups],
    });
  });
}

/** Props of {@link KubernetesSweep}. */
export interface KubernetesSweepProps {
  /** Clusters to sweep (same account and region as the stack). */
  readonly clusters: readonly { readonly name: string }[];
  /** The incident table (open or join, as the ingest function does). */
  readonly incidentTable: ITableV2;
  /** The incident workflow the sweep starts. */
  readonly workflow: IStateMachine;
  /** Repeats of one (cluster, scope, class) within this window join one incident. */
  readonly incidentWindow: Duration;
  /** DynamoDB TTL of incident rows, in days. */
  readonly historyRetentionDays: number;
  /** Retention of the function's logs. */
  readonly logRetention: RetentionDays;
  /** Where the sweep reads the clusters and trusted sandbox images. */
  readonly configStore: ConfigStore;
  /**
   * How often the clusters are swept.
   * @default Duration.minutes(5)
   */
  readonly interval?: Duration;
  /**
   * The VPC the sweep runs in: it then sweeps only the clusters of that VPC (`CLUSTER_REACH`).
   * @default - outside any VPC: the clusters without `vpc`
   */
  readonly placement?: VpcPlacement;
}

/**
 * The scheduled sweep (EventBridge Scheduler): lists the stuck pods of every configured cluster and
 * opens incidents for failures that produced no log line or CloudTrail event (logs not shipped,
 * filter missed). Its own role: its access entries, the incident table's open-or-join writes and
 * StartExecution on the workflow.
 */
export class KubernetesSweep extends Construct {
  /** The function that sweeps the clusters for stuck pods. */
  readonly function: IFunction;

  constructor(scope: Construct, id: string, props: KubernetesSweepProps) {
    super(scope, id);
    const fn = new PodDoctorFunction(this, 'Function', {
      entry: lambdaEntry('kubernetes-sweep'),
      description: 'pod-doctor: scheduled sweep of stuck pods in the configured clusters',
      logRetention: props.logRetention,
      timeout: Duration.minutes(5),
      memorySize: 512,
      synchronousOnly: true,
      environment: {
        INCIDENT_TABLE_NAME: props.incidentTable.tableName,
        INCIDENT_WINDOW_MINUTES: String(props.incidentWindow.toMinutes()),
        HISTORY_RETENTION_DAYS: String(props.historyRetentionDays),
        WORKFLOW_ARN: props.workflow.stateMachineArn,
      },
    });
    props.placement?.place(fn, true);
    grantClusterAccess(this, fn, props.clusters);
    props.configStore.attach(fn);
    grantRowWrites(props.incidentTable, fn, ['incidents', 'budgets'], ['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    props.workflow.grantStartExecution(fn);
    scheduleFunction(this, fn, {
      rate: props.interval ?? Duration.minutes(5),
      description: 'pod-doctor: sweep the configured clusters for stuck pods',
      what: 'Kubernetes sweep',
      maxEventAge: Duration.minutes(5),
    });
    this.function = fn;
  }
}
