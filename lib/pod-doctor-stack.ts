import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PodDoctorConfig } from './config.js';
import { PodDoctor } from './pod-doctor.js';

/** Props of {@link PodDoctorStack}. */
export interface PodDoctorStackProps extends StackProps {
  /** Validated pod-doctor configuration. */
  readonly config: PodDoctorConfig;
}

/** The project's own stack: a thin host for the {@link PodDoctor} construct. */
export class PodDoctorStack extends Stack {
  readonly podDoctor: PodDoctor;

  constructor(scope: Construct, id: string, props: PodDoctorStackProps) {
    super(scope, id, props);
    this.podDoctor = new PodDoctor(this, 'PodDoctor', { config: props.config });
  }
}
