import { ArnFormat, CustomResource, Duration, Stack } from 'aws-cdk-lib';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { acknowledgeLogGroupArns, acknowledgeProviderFramework } from './nag.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';

/** Props of {@link LogGroupPrerequisites}. */
export interface LogGroupPrerequisitesProps {
  /** Log groups pod-doctor subscribes to. */
  readonly logGroupNames: readonly string[];
  /** The function the subscription filters deliver to (its own filter does not count against the limit). */
  readonly destination: IFunction;
  /** Retention of a log group pod-doctor has to create, and of its own function logs. */
  readonly logRetention: RetentionDays;
}

/**
 * Before the subscription filters, one custom resource makes every log group ready: created when it
 * does not exist yet (Container Insights creates it only on its first flush), and the deployment
 * refused, with the groups and their filters named, when a group's 2 subscription filters (the
 * CloudWatch Logs limit) belong to others. One resource for all groups, not one per group: a stack
 * holds 500 resources, and per-cluster resources are what a large fleet runs out of. Log groups live
 * in the stack's region, so the destination is always in the same region.
 */
export class LogGroupPrerequisites extends Construct {
  private readonly provider: Provider;
  private readonly props: LogGroupPrerequisitesProps;

  constructor(scope: Construct, id: string, props: LogGroupPrerequisitesProps) {
    super(scope, id);
    this.props = props;
    const stack = Stack.of(this);
    const fn = new PodDoctorFunction(this, 'Function', {
      entry: lambdaEntry('log-group-prerequisites'),
      description: 'pod-doctor: create a missing log group; refuse one without a free subscription filter slot',
      logRetention: props.logRetention,
      // One group after another (control-plane calls are rate-limited): a few hundred groups fit.
      timeout: Duration.minutes(5),
      synchronousOnly: true,
    });
    const groups = props.logGroupNames.flatMap((name) => {
      const arn = stack.formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: name,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
      return [arn, `${arn}:*`];
    });
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogGroup', 'logs:PutRetentionPolicy', 'logs:DescribeSubscriptionFilters'],
        resources: groups,
      }),
    );
    acknowledgeLogGroupArns(fn.role as IRole, groups);
    this.provider = new Provider(this, 'Provider', {
      onEventHandler: fn,
      logGroup: new LogGroup(this, 'ProviderLogs', { retention: props.logRetention }),
    });
    acknowledgeProviderFramework(this.provider, fn);
  }

  /** The custom resource that makes every log group ready; subscribe only after it. */
  ready(scope: Construct, id: string): CustomResource {
    return new CustomResource(scope, id, {
      serviceToken: this.provider.serviceToken,
      resourceType: 'Custom::PodDoctorLogGroupReady',
      properties: {
        LogGroupNames: [...new Set(this.props.logGroupNames)],
        DestinationArn: this.props.destination.functionArn,
        RetentionInDays: this.props.logRetention,
      },
    });
  }
}
