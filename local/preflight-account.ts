import {
  CloudTrailClient,
  DescribeTrailsCommand,
  GetTrailStatusCommand,
  type GetTrailStatusCommandOutput,
  type Trail,
  TrailNotFoundException,
} from '@aws-sdk/client-cloudtrail';
import {
  CloudWatchLogsClient,
  DescribeLogGroupsCommand,
  DescribeSubscriptionFiltersCommand,
  type FilteredLogEvent,
  FilterLogEventsCommand,
  type LogGroup,
  ResourceNotFoundException,
  type SubscriptionFilter,
} from '@aws-sdk/client-cloudwatch-logs';
import type { VpcEndpoint } from '@aws-sdk/client-ec2';
import {
  DescribeClusterCommand,
  EKSClient,
  ResourceNotFoundException as EksResourceNotFoundException,
} from '@aws-sdk/client-eks';
import { DescribeInstanceInformationCommand, type InstanceInformation, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import type { PreflightClients } from '../cli/preflight-checks.js';
import {
  ACCOUNT,
  type AccountSnapshot,
  CLUSTER,
  ENDPOINT_SG,
  healthyAccount,
  NODE_ID,
  REGION,
  SUBNET,
  VPC,
} from './account-snapshot.js';
import { mockAccount } from './mock-account.js';

/**
 * What preflight reads beyond the account checks, in the SDK's own types: trails and their status,
 * the Container Insights log group, its subscription filters and recent events, SSM registrations.
 */
export interface PreflightSnapshot {
  readonly account: AccountSnapshot;
  trails: Trail[];
  /** Trail ARN → GetTrailStatus answer. */
  trailStatus: Record<string, Omit<GetTrailStatusCommandOutput, '$metadata'>>;
  logGroups: LogGroup[];
  /** Log group name → its subscription filters. */
  subscriptionFilters: Record<string, SubscriptionFilter[]>;
  /** Log group name → events (FilterLogEvents matches the quoted term against the message). */
  logEvents: Record<string, FilteredLogEvent[]>;
  instanceInformation: InstanceInformation[];
}

const DATAPLANE = `/aws/containerinsights/${CLUSTER}/dataplane`;
const APPLICATION = `/aws/containerinsights/${CLUSTER}/application`;

/** A log group as DescribeLogGroups returns it. */
function logGroup(name: string, created: string): LogGroup {
  return {
    logGroupName: name,
    creationTime: Date.parse(created),
    retentionInDays: 7,
    metricFilterCount: 0,
    arn: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name}:*`,
    storedBytes: 0,
    logGroupClass: 'STANDARD',
    logGroupArn: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name}`,
  };
}
const TRAIL_ARN = `arn:aws:cloudtrail:${REGION}:${ACCOUNT}:trail/management-events`;

/** An SSM interface endpoint in the node subnet, as DescribeVpcEndpoints returns it. */
export function ssmEndpoint(service: 'ssm' | 'ssmmessages' | 'ec2messages'): VpcEndpoint {
  return {
    VpcEndpointId: `vpce-0${service
      .replace(/[^a-z0-9]/g, '')
      .padEnd(15, '0')
      .slice(0, 15)}`,
    VpcEndpointType: 'Interface',
    VpcId: VPC,
    ServiceName: `com.amazonaws.${REGION}.${service}`,
    State: 'Available',
    PrivateDnsEnabled: true,
    Groups: [{ GroupId: ENDPOINT_SG, GroupName: 'ecr-endpoints' }],
    SubnetIds: [SUBNET],
  };
}

/**
 * An account ready for pod-doctor: the healthy private cluster (no NAT) with the SSM endpoints, a
 * multi-region trail that is logging, the dataplane log group with one foreign subscription filter and
 * ipamd lines from aws-node (AWS_VPC_K8S_CNI_LOG_FILE=stdout), the node online in SSM.
 */
export function readyPreflightAccount(now = new Date('2026-11-29T10:00:00Z')): PreflightSnapshot {
  const account = healthyAccount(now);
  account.vpcEndpoints.push(ssmEndpoint('ssm'), ssmEndpoint('ssmmessages'), ssmEndpoint('ec2messages'));
  const t = now.getTime();
  return { account, ...loggingTrail(t), ...dataplaneLogs(t), ...onlineNode(t) };
}

/** A multi-region trail that is logging (last delivery five minutes ago). */
function loggingTrail(t: number): Pick<PreflightSnapshot, 'trails' | 'trailStatus'> {
  return {
    trails: [
      {
        Name: 'management-events',
        S3BucketName: `aws-cloudtrail-logs-${ACCOUNT}-5f1a2b3c`,
        IncludeGlobalServiceEvents: true,
        IsMultiRegionTrail: true,
        HomeRegion: REGION,
        TrailARN: TRAIL_ARN,
        LogFileValidationEnabled: true,
        HasCustomEventSelectors: false,
        HasInsightSelectors: false,
        IsOrganizationTrail: false,
      },
    ],
    trailStatus: {
      [TRAIL_ARN]: {
        IsLogging: true,
        LatestDeliveryTime: new Date(t - 300_000),
        StartLoggingTime: new Date('2025-01-10T08:00:00Z'),
        TimeLoggingStarted: '2025-01-10T08:00:00Z',
      },
    },
  };
}

/**
 * The dataplane log group (one foreign subscription filter, an ipamd line from aws-node two minutes
 * ago, a kubelet journal line a minute ago) and the application group (aws-node's stdout).
 */
function dataplaneLogs(t: number): Pick<PreflightSnapshot, 'logGroups' | 'subscriptionFilters' | 'logEvents'> {
  return {
    logGroups: [logGroup(DATAPLANE, '2026-03-01T10:05:00Z'), logGroup(APPLICATION, '2026-03-01T10:05:00Z')],
    subscriptionFilters: {
      [DATAPLANE]: [
        {
          filterName: 'datadog-forwarder',
          logGroupName: DATAPLANE,
          filterPattern: '',
          destinationArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:datadog-forwarder`,
          distribution: 'ByLogStream',
          creationTime: Date.parse('2026-03-02T09:00:00Z'),
        },
      ],
    },
    logEvents: {
      [DATAPLANE]: [
        {
          logStreamName: `aws-node-7xk2p_kube-system_aws-node-0f1e2d3c4b5a69788776655443322110ffeeddccbbaa99887766554433221100`,
          timestamp: t - 120_000,
          ingestionTime: t - 118_000,
          eventId: '38294012945512334567890123456789012345678901234567890123',
          // The aws-node container's stdout as Container Insights ships it; the ipamd zap JSON line is
          // the shape amazon-vpc-cni-k8s writes (https://github.com/aws/amazon-vpc-cni-k8s/blob/master/docs/troubleshooting.md).
          message: JSON.stringify({
            log: '{"level":"info","ts":"2026-11-29T09:58:00.114Z","caller":"ipamd/ipamd.go:1421","msg":"Successfully Reconciled ENI/IP pool"}',
            stream: 'stdout',
            kubernetes: {
              pod_name: 'aws-node-7xk2p',
              namespace_name: 'kube-system',
              container_name: 'aws-node',
              host: 'ip-10-0-12-34.eu-west-1.compute.internal',
            },
          }),
        },
        {
          logStreamName: 'kubelet.service-ip-10-0-12-34.eu-west-1.compute.internal',
          timestamp: t - 60_000,
          ingestionTime: t - 58_000,
          eventId: '38294012945512334567890123456789012345678901234567890124',
          // A kubelet journal line as the add-on's Fluent Bit ships it (systemd input, aws filter).
          message: JSON.stringify({
            hostname: 'ip-10-0-12-34.eu-west-1.compute.internal',
            systemd_unit: 'kubelet.service',
            ec2_instance_id: NODE_ID,
            message: 'I1129 09:59:00.000000    3412 kubelet.go:2431] "SyncLoop (PLEG): event for pod"',
          }),
        },
      ],
      [APPLICATION]: [
        {
          logStreamName: `aws-node-7xk2p_kube-system_aws-node-0f1e2d3c4b5a69788776655443322110ffeeddccbbaa99887766554433221100`,
          timestamp: t - 90_000,
          ingestionTime: t - 88_000,
          eventId: '38294012945512334567890123456789012345678901234567890125',
          message: JSON.stringify({
            log: '{"level":"info","ts":"2026-11-29T09:58:30.114Z","caller":"ipamd/ipamd.go:1421","msg":"Successfully Reconciled ENI/IP pool"}',
            stream: 'stdout',
            kubernetes: { pod_name: 'aws-node-7xk2p', namespace_name: 'kube-system', container_name: 'aws-node' },
          }),
        },
      ],
    },
  };
}

/** The node registered and online in SSM. */
function onlineNode(t: number): Pick<PreflightSnapshot, 'instanceInformation'> {
  return {
    instanceInformation: [
      {
        InstanceId: NODE_ID,
        PingStatus: 'Online',
        LastPingDateTime: new Date(t - 60_000),
        AgentVersion: '3.3.2958.0',
        IsLatestVersion: false,
        PlatformType: 'Linux',
        PlatformName: 'Amazon Linux',
        PlatformVersion: '2023',
        ResourceType: 'EC2Instance',
        IPAddress: '10.0.12.34',
        ComputerName: 'ip-10-0-12-34.eu-west-1.compute.internal',
        AssociationStatus: 'Success',
        SourceId: NODE_ID,
        SourceType: 'AWS::EC2::Instance',
      },
    ],
  };
}

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' };
const meta = {
  httpStatusCode: 200,
  requestId: '7d2c9e1f-3a4b-4c5d-8e6f-0a1b2c3d4e5f',
  attempts: 1,
  totalRetryDelay: 0,
};

/**
 * Preflight clients answering from a recorded account (aws-sdk-client-mock), as seen from `region`:
 * in another region than the account's, EKS knows no such cluster.
 */
export function mockPreflightAccount(
  s: PreflightSnapshot,
  region = s.account.region,
): PreflightClients & { restore(): void } {
  const checks = mockAccount(s.account);
  const eks = new EKSClient({ region, credentials: CREDENTIALS });
  const ek = mockClient(eks);
  ek.on(DescribeClusterCommand).callsFake(async (input: { name?: string }) => {
    if (region !== s.account.region || input.name !== s.account.cluster.name)
      throw new EksResourceNotFoundException({
        message: `No cluster found for name: ${input.name}.`,
        $metadata: { ...meta, httpStatusCode: 404 },
      });
    return { $metadata: meta, cluster: s.account.cluster };
  });
  const cloudtrail = new CloudTrailClient({ region: s.account.region, credentials: CREDENTIALS });
  const logs = new CloudWatchLogsClient({ region: s.account.region, credentials: CREDENTIALS });
  const ssm = new SSMClient({ region: s.account.region, credentials: CREDENTIALS });
  const ct = mockClient(cloudtrail);
  const lg = mockClient(logs);
  const sm = mockClient(ssm);
  ct.on(DescribeTrailsCommand).resolves({ $metadata: meta, trailList: s.trails });
  ct.on(GetTrailStatusCommand).callsFake(async (input: { Name?: string }) => {
    const status = s.trailStatus[input.Name ?? ''];
    if (!status)
      throw new TrailNotFoundException({
        message: `Unknown trail: ${input.Name}`,
        $metadata: { ...meta, httpStatusCode: 400 },
      });
    return { $metadata: meta, ...status };
  });
  lg.on(DescribeLogGroupsCommand).callsFake(async (input: { logGroupNamePrefix?: string }) => ({
    $metadata: meta,
    logGroups: s.logGroups.filter((g) => g.logGroupName?.startsWith(input.logGroupNamePrefix ?? '')),
  }));
  lg.on(DescribeSubscriptionFiltersCommand).callsFake(async (input: { logGroupName?: string }) => {
    if (!s.logGroups.some((g) => g.logGroupName === input.logGroupName))
      throw new ResourceNotFoundException({ message: 'The specified log group does not exist.', $metadata: meta });
    return { $metadata: meta, subscriptionFilters: s.subscriptionFilters[input.logGroupName ?? ''] ?? [] };
  });
  lg.on(FilterLogEventsCommand).callsFake(
    async (input: { logGroupName?: string; filterPattern?: string; startTime?: number; limit?: number }) => {
      if (!s.logGroups.some((g) => g.logGroupName === input.logGroupName))
        throw new ResourceNotFoundException({ message: 'The specified log group does not exist.', $metadata: meta });
      const term = (input.filterPattern ?? '').replace(/^"|"$/g, '');
      const events = (s.logEvents[input.logGroupName ?? ''] ?? []).filter(
        (e) => (e.timestamp ?? 0) >= (input.startTime ?? 0) && (e.message ?? '').includes(term),
      );
      return { $metadata: meta, events: events.slice(0, input.limit ?? 10_000), searchedLogStreams: [] };
    },
  );
  sm.on(DescribeInstanceInformationCommand).callsFake(
    async (input: { Filters?: { Key?: string; Values?: string[] }[] }) => {
      const ids = input.Filters?.find((f) => f.Key === 'InstanceIds')?.Values;
      return {
        $metadata: meta,
        InstanceInformationList: s.instanceInformation.filter((x) => !ids || ids.includes(x.InstanceId ?? '')),
      };
    },
  );
  return {
    ec2: checks.ec2,
    eks,
    cloudtrail,
    logs,
    ssm,
    restore: () => {
      checks.restore();
      for (const m of [ct, lg, sm, ek]) m.restore();
    },
  };
}
