import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';

/** The Kubernetes group pod-doctor's access entry maps its role to (bound by k8s/pod-doctor-rbac.yaml). */
export const POD_DOCTOR_KUBERNETES_GROUP = 'pod-doctor';

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
}

/**
 * pod-doctor inside the cluster: one function that reads the Kubernetes API of each configured
 * cluster (stuck pods and their events, the node, aws-node, VPC CNI settings; verification by pods
 * starting), authenticated by an EKS access entry for its role. The entry maps the role to a
 * Kubernetes group and associates no EKS access policy: what the group may do is exactly what
 * k8s/pod-doctor-rbac.yaml binds (read-only; no Secrets). CloudFormation refuses the entry for a
 * cluster whose authentication mode is CONFIG_MAP — at deploy time, with EKS's own message.
 */
export class KubernetesAccess extends Construct {
  readonly function: IFunction;

  constructor(scope: Construct, id: string, props: KubernetesAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const fn = new PodDoctorFunction(this, 'Function', {
      entry: lambdaEntry('kubernetes'),
      description: 'pod-doctor: Kubernetes API of the configured clusters (inspect, verify)',
      logRetention: props.logRetention,
      timeout: Duration.minutes(15),
      memorySize: 512,
      synchronousOnly: true,
    });
    const clusterArns = props.clusters.map((c) =>
      stack.formatArn({
        service: 'eks',
        resource: 'cluster',
        resourceName: c.name,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      }),
    );
    if (clusterArns.length > 0) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['eks:DescribeCluster'], resources: clusterArns }));
    }
    props.clusters.forEach((c, i) => {
      new CfnAccessEntry(this, `AccessEntry${i}`, {
        clusterName: c.name,
        principalArn: fn.role?.roleArn ?? '',
        type: 'STANDARD',
        kubernetesGroups: [props.kubernetesGroup ?? POD_DOCTOR_KUBERNETES_GROUP],
      });
    });
    this.function = fn;
  }
}
