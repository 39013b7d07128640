import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ConfigStore } from '../config-store.js';
import { lambdaEntry } from '../paths.js';
import { PodDoctorFunction } from '../pod-doctor-function.js';

/** What every workflow function shares: the deployment's configuration and log retention. */
export interface WorkflowFunctionSettings {
  /** Where every workflow function reads the deployment's configuration. */
  readonly configStore: ConfigStore;
  /** Retention of the functions' logs. */
  readonly logRetention: RetentionDays;
}

/** A function of the workflow: invoked synchronously, with the shared workflow configuration. */
export function workflowFunction(
  scope: Construct,
  id: string,
  entry: string,
  description: string,
  settings: WorkflowFunctionSettings,
  extra: Record<string, string> = {},
): PodDoctorFunction {
  const fn = new PodDoctorFunction(scope, id, {
    entry: lambdaEntry(entry),
    description: `pod-doctor: ${description}`,
    logRetention: settings.logRetention,
    synchronousOnly: true,
    environment: extra,
  });
  settings.configStore.attach(fn);
  return fn;
}
