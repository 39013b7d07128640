/**
 * Integration test for people with an AWS account (never run in CI: no vitest project matches
 * test/integ/). It deploys pod-doctor with one log group it creates, writes one real failure line
 * into it, and asserts that an incident execution starts, passes Summarize and publishes the summary
 * (Notify), then destroys the stack. How to run it and what it costs: README, "Integration test".
 */
import { ExpectedResult, IntegTest, Match } from '@aws-cdk/integ-tests-alpha';
import { App, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { parseConfig } from '../../lib/config.js';
import { PodDoctorStack } from '../../lib/pod-doctor-stack.js';

const CLUSTER = 'pod-doctor-integ';
const LOG_GROUP = `/pod-doctor-integ/${CLUSTER}/dataplane`;
/** A kubelet FailedCreatePodSandBox line as Container Insights ships it (pause image garbage-collected). */
const FAILURE_LINE = JSON.stringify({
  hostname: 'ip-10-0-12-34.eu-west-1.compute.internal',
  systemd_unit: 'kubelet.service',
  message:
    'E1129 10:00:00.000000    3412 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"CreatePodSandbox\\" for \\"web-1_default(0a1b2c3d)\\" with CreatePodSandboxError: \\"Failed to create sandbox for pod \\\\\\"web-1_default(0a1b2c3d)\\\\\\": rpc error: code = NotFound desc = failed to get sandbox image \\\\\\"localhost/kubernetes/pause\\\\\\": failed to pull image \\\\\\"localhost/kubernetes/pause\\\\\\": not found\\"" pod="default/web-1"',
  ec2_instance_id: 'i-0a1b2c3d4e5f60718',
});

const app = new App();
const stack = new PodDoctorStack(app, 'PodDoctorInteg', {
  config: parseConfig({ clusters: [{ name: CLUSTER, logGroups: [LOG_GROUP] }], modes: { 'sandbox-image': 'observe' } }),
});
const logGroup = new LogGroup(stack, 'IntegDataplane', {
  logGroupName: LOG_GROUP,
  retention: RetentionDays.ONE_DAY,
  removalPolicy: RemovalPolicy.DESTROY,
});
// The group exists before pod-doctor checks it and subscribes.
stack.podDoctor.detection.node.addDependency(logGroup);

const integ = new IntegTest(app, 'PodDoctorIncident', {
  testCases: [stack],
  diffAssets: false,
  cdkCommandOptions: { destroy: { args: { force: true } } },
});
const stream = `integ-${Date.now()}`;
const written = integ.assertions
  .awsApiCall('CloudWatchLogs', 'createLogStream', { logGroupName: LOG_GROUP, logStreamName: stream })
  .next(
    integ.assertions.awsApiCall('CloudWatchLogs', 'putLogEvents', {
      logGroupName: LOG_GROUP,
      logStreamName: stream,
      // Evaluated at synth; CloudWatch Logs accepts events up to 14 days old, the filter delivers on ingestion.
      logEvents: [{ timestamp: Date.now(), message: FAILURE_LINE }],
    }),
  );

const stateMachineArn = stack.podDoctor.workflow.stateMachine.stateMachineArn;
const started = integ.assertions
  .awsApiCall('StepFunctions', 'listExecutions', { stateMachineArn }, ['executions.0.executionArn'])
  .expect(ExpectedResult.objectLike({ executions: Match.arrayWith([Match.objectLike({ stateMachineArn })]) }))
  .waitForAssertions({ totalTimeout: Duration.minutes(5), interval: Duration.seconds(15) });
written.next(started);

const executionArn = started.getAttString('executions.0.executionArn');
const finished = integ.assertions
  .awsApiCall('StepFunctions', 'describeExecution', { executionArn })
  .expect(ExpectedResult.objectLike({ status: 'SUCCEEDED' }))
  .waitForAssertions({ totalTimeout: Duration.minutes(10), interval: Duration.seconds(20) });
const history = integ.assertions
  .awsApiCall('StepFunctions', 'getExecutionHistory', { executionArn, maxResults: 1000 })
  .expect(
    ExpectedResult.objectLike({
      events: Match.arrayWith([
        Match.objectLike({ type: 'TaskStateExited', stateExitedEventDetails: Match.objectLike({ name: 'Summarize' }) }),
        Match.objectLike({ type: 'TaskStateExited', stateExitedEventDetails: Match.objectLike({ name: 'Notify' }) }),
      ]),
    }),
  );
started.next(finished).next(history);
