import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PodDoctorConfig } from './config.js';
import { channelsFromConfig } from './constructs/channels/channels-from-config.js';
import { PodDoctor } from './pod-doctor.js';

/** Props of {@link PodDoctorStack}. */
export interface PodDoctorStackProps extends StackProps {
  /** Validated pod-doctor configuration (the `pod-doctor` key of cdk.json). */
  readonly config: PodDoctorConfig;
}

/** The project's own stack: a thin host for the {@link PodDoctor} construct, and its outputs. */
export class PodDoctorStack extends Stack {
  /** The pod-doctor this stack holds. */
  readonly podDoctor: PodDoctor;

  constructor(scope: Construct, id: string, props: PodDoctorStackProps) {
    super(scope, id, props);
    const podDoctor = PodDoctor.fromConfig(this, 'PodDoctor', props.config, {
      channels: channelsFromConfig(this, props.config.channels),
    });
    this.podDoctor = podDoctor;
    new CfnOutput(this, 'KillSwitchParameterName', {
      value: podDoctor.killSwitch.parameterName,
      description: 'Set this SSM parameter to "on" to stop every pod-doctor action',
    });
    new CfnOutput(this, 'NotificationTopicArn', { value: podDoctor.topic.topicArn });
    new CfnOutput(this, 'EvidenceBucketName', { value: podDoctor.evidenceBucket.bucketName });
    new CfnOutput(this, 'StateMachineArn', { value: podDoctor.stateMachine.stateMachineArn });
  }
}
