import { Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { COMMAND_OUTPUT_PREFIX } from '../../lambdas/core/door/state.js';
import type { PodDoctorConfig } from '../config.js';
import type { VpcPlacement } from './cluster-vpc.js';
import type { ConfigStore } from './config-store.js';
import { eksArn } from './eks-arn.js';
import { grantClusterAccess, POD_DOCTOR_ACTIONS_GROUP, POD_DOCTOR_KUBERNETES_GROUP } from './kubernetes-access.js';
import {
  acknowledgeClusterResources,
  acknowledgeDescribeOnly,
  acknowledgeEvidencePrefix,
  acknowledgeEvidenceRead,
  acknowledgeInstanceProfiles,
} from './nag.js';
import type { NodeCommands } from './node-commands.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';
import { grantRemedies, hasRemediationScope } from './remedy-grants.js';
import { grantRowWrites } from './table-rows.js';

/** Props of {@link DoorFunction}. */
export interface DoorFunctionProps {
  /** Clusters: their node commands, remediation scopes and Kubernetes API. */
  readonly clusters: PodDoctorConfig['clusters'];
  /** Where the door reads the deployment's configuration (as every workflow function does). */
  readonly configStore: ConfigStore;
  readonly logRetention: RetentionDays;
  /** Reservations, evidence, the ledger, approval grants, action history. */
  readonly incidentTable: ITableV2;
  /** Command output (under `commands/`). */
  readonly evidenceBucket: IBucket;
  /** Parameter whose value `on` stops every change. */
  readonly killSwitch: IStringParameter;
  /** The SSM documents the door sends. */
  readonly nodeCommands: NodeCommands;
  /**
   * The door reaches the clusters' Kubernetes API through its own access entry (groups `pod-doctor`
   * and `pod-doctor-actions`: the only entry mapped to the write group).
   * @default false
   */
  readonly clusterAccess?: boolean;
  /**
   * The VPC the door runs in, for clusters whose API server is reached from inside it.
   * @default - outside any VPC
   */
  readonly placement?: VpcPlacement;
}

/**
 * The door: the one function that changes anything, with the one role that may. It gates every
 * action request right before it runs (lambdas/core/door/gate.ts) and holds the only mutating grants
 * of the stack: SendCommand on pod-doctor's documents (on nodes tagged for a configured cluster),
 * the account remedies' writes scoped to each cluster's `remediation`, and the Kubernetes write group
 * through its own access entry. Every other function reads.
 */
export class DoorFunction extends Construct {
  readonly function: IFunction;

  constructor(scope: Construct, id: string, props: DoorFunctionProps) {
    super(scope, id);
    const fn = new PodDoctorFunction(this, 'Function', {
      // The account remedies' writes are bundled only where a cluster has a remediation scope (and its grants).
      entry: lambdaEntry(hasRemediationScope(props.clusters) ? 'door-remedies' : 'door'),
      description: 'pod-doctor: the door (gate and run every action request)',
      logRetention: props.logRetention,
      // The longest step: an aws-node restart or a drain waiting for pods (2 minutes each), plus an
      // add-on update settling.
      timeout: Duration.minutes(6),
      memorySize: 512,
      synchronousOnly: true,
    });
    props.placement?.place(fn);
    props.configStore.attach(fn);
    this.function = fn;
    const role = fn.role as IRole;
    const names = props.clusters.map((c) => c.name);
    props.nodeCommands.grantSendCommand(fn, props.nodeCommands.names, names);
    props.nodeCommands.grantReadInvocations(fn);
    // Reads: grants, node evidence, the breaker's count, the ledger. Writes: its own rows only —
    // node evidence and cooldowns, the ledger, cap slots, target cooldowns, the action history.
    props.incidentTable.grant(fn, 'dynamodb:GetItem', 'dynamodb:Query');
    grantRowWrites(
      props.incidentTable,
      fn,
      ['nodes', 'ledger', 'reservations'],
      ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    );
    props.killSwitch.grantRead(fn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [props.evidenceBucket.arnForObjects(`${COMMAND_OUTPUT_PREFIX}/*`)],
      }),
    );
    acknowledgeEvidencePrefix(role, props.evidenceBucket, COMMAND_OUTPUT_PREFIX, 'Node command outputs');
    this.grantTargets(fn, role, props);
    grantRemedies(fn, role, props.clusters);
    if (props.clusterAccess) {
      // An access entry only where pod-doctor reaches the API: a kubernetesApi: false (CONFIG_MAP) cluster refuses one at deploy.
      const reached = props.clusters.filter((c) => c.kubernetesApi);
      grantClusterAccess(this, fn, reached, [POD_DOCTOR_KUBERNETES_GROUP, POD_DOCTOR_ACTIONS_GROUP]);
      // The events write-back reads the run's summary (the key Summarize returned): GetObject under incidents/ only.
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['s3:GetObject'],
          resources: [props.evidenceBucket.arnForObjects('incidents/*')],
        }),
      );
      acknowledgeEvidenceRead(role, props.evidenceBucket, 'incidents');
    }
  }

  /** The reads that corroborate a target: the instance (EC2), its role, its node group, the cluster. */
  private grantTargets(fn: PodDoctorFunction, role: IRole, props: DoorFunctionProps): void {
    const stack = Stack.of(this);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }));
    acknowledgeDescribeOnly(role);
    const profiles = [stack.formatArn({ service: 'iam', region: '', resource: 'instance-profile', resourceName: '*' })];
    fn.addToRolePolicy(new PolicyStatement({ actions: ['iam:GetInstanceProfile'], resources: profiles }));
    acknowledgeInstanceProfiles(role, profiles);
    if (props.clusters.length === 0) return;
    const clusters = props.clusters.map((c) => eksArn(stack, 'cluster', c.name, c.region));
    const nodegroups = props.clusters.map((c) => eksArn(stack, 'nodegroup', `${c.name}/*`, c.region));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['eks:DescribeCluster'], resources: clusters }));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['eks:DescribeNodegroup'], resources: nodegroups }));
    acknowledgeClusterResources(role, 'nodegroup', nodegroups);
  }
}
