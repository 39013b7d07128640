import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { lambdaEntry } from '../paths.js';
import { PodDoctorFunction } from '../pod-doctor-function.js';

/** What every workflow function shares: its environment and log retention. */
export interface WorkflowFunctionSettings {
  /** Environment of every workflow function (`WORKFLOW_CONFIG`). */
  readonly environment: Readonly<Record<string, string>>;
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
  return new PodDoctorFunction(scope, id, {
    entry: lambdaEntry(entry),
    description: `pod-doctor: ${description}`,
    logRetention: settings.logRetention,
    synchronousOnly: true,
    environment: { ...settings.environment, ...extra },
  });
}
