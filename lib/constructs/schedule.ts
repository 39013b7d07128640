import { type Duration, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { Construct } from 'constructs';
import { acknowledgeScheduleTarget } from './nag.js';

/** How one of pod-doctor's functions runs on a schedule. */
export interface FunctionScheduleProps {
  /** The rate (EventBridge Scheduler's shortest: one minute). */
  readonly rate: Duration;
  /** The schedule's description. */
  readonly description: string;
  /** What the function is, for the schedule role's description and its cdk-nag acknowledgement. */
  readonly what: string;
  /** A run that could not start within this long is dropped: the next one supersedes it. */
  readonly maxEventAge: Duration;
}

/**
 * An EventBridge Scheduler schedule invoking `fn` at a fixed rate with its own role (the target
 * grants it invoke), assumable only by EventBridge Scheduler on behalf of this account. No retries:
 * a missed run is superseded by the next one instead of piling up. Children `ScheduleRole`, `Schedule`.
 */
export function scheduleFunction(scope: Construct, fn: IFunction, p: FunctionScheduleProps): Schedule {
  const role = new Role(scope, 'ScheduleRole', {
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
    description: `pod-doctor: EventBridge Scheduler invokes the ${p.what}`,
  });
  const schedule = new Schedule(scope, 'Schedule', {
    description: p.description,
    schedule: ScheduleExpression.rate(p.rate),
    target: new LambdaInvoke(fn, { role, retryAttempts: 0, maxEventAge: p.maxEventAge }),
  });
  acknowledgeScheduleTarget(role, fn, p.what);
  return schedule;
}
