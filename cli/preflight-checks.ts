import type { CloudTrailClient } from '@aws-sdk/client-cloudtrail';
import {
  type CloudWatchLogsClient,
  DescribeLogGroupsCommand,
  DescribeSubscriptionFiltersCommand,
  FilterLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import type { Instance } from '@aws-sdk/client-ec2';
import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import { DescribeInstanceInformationCommand, type InstanceInformation, type SSMClient } from '@aws-sdk/client-ssm';
import {
  type Ec2Client,
  paginateDescribeInstances,
  paginateDescribeVpcEndpoints,
} from '../lambdas/aws/ec2/commands.js';
import { trailSignal } from '../lambdas/aws/ingest/signal-readers.js';
import { internetRoute, nodeRouteTable } from '../lambdas/aws/readers/account/network-checks.js';
import { CLUSTER_NAME_TAGS, CLUSTER_OWNERSHIP_TAG_PREFIX, clusterOfTags } from '../lambdas/core/contract/node-tags.js';
import { dataplaneLogGroup } from '../lambdas/core/contract/signals.js';
import { authenticationModeRow, endpointAccessRow } from './preflight-cluster.js';
import type { PreflightRow } from './preflight-row.js';

/** The read-only clients preflight uses (real ones from the CLI, recorded ones in tests). */
export interface PreflightClients {
  readonly ec2: Ec2Client;
  readonly eks: EKSClient;
  readonly ssm: SSMClient;
  readonly logs: CloudWatchLogsClient;
  readonly cloudtrail: CloudTrailClient;
}

export type { PreflightRow, PreflightStatus } from './preflight-row.js';

export interface PreflightOptions {
  readonly cluster: string;
  readonly region: string;
  /** Now, for the ipamd evidence window. */
  readonly now?: Date;
}

/** The SSM agent that runs pod-doctor's documents (`interpolationType: ENV_VAR` needs it). */
export const MIN_SSM_AGENT = '3.3.2746.0';
/** The interface endpoints Run Command needs where nodes have no route to the internet. */
export const SSM_ENDPOINT_SERVICES = ['ssm', 'ssmmessages', 'ec2messages'] as const;

/** A cluster's nodes as preflight sees them: the cluster's VPC and its running nodes. */
interface ClusterNodes {
  readonly vpcId?: string;
  readonly nodes: Instance[];
}

/** Compares dotted versions numerically: -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** A running instance that says, in any tag, that it belongs to the cluster. */
function looksLikeNodeOf(cluster: string, i: Instance): boolean {
  return (i.Tags ?? []).some((t) => t.Value === cluster || t.Key === `${CLUSTER_OWNERSHIP_TAG_PREFIX}${cluster}`);
}

async function clusterNodes(c: PreflightClients, o: PreflightOptions): Promise<ClusterNodes> {
  const cluster = (await c.eks.send(new DescribeClusterCommand({ name: o.cluster }))).cluster;
  const vpcId = cluster?.resourcesVpcConfig?.vpcId;
  const nodes: Instance[] = [];
  const filters = [
    { Name: 'vpc-id', Values: [vpcId ?? ''] },
    { Name: 'instance-state-name', Values: ['running'] },
  ];
  for await (const page of paginateDescribeInstances({ client: c.ec2 }, { Filters: filters })) {
    for (const r of page.Reservations ?? [])
      nodes.push(...(r.Instances ?? []).filter((i) => i.VpcId === vpcId && looksLikeNodeOf(o.cluster, i)));
  }
  return { vpcId, nodes };
}

async function checkRegion(c: PreflightClients, o: PreflightOptions): Promise<PreflightRow[]> {
  const rows: PreflightRow[] = [];
  try {
    const cluster = (await c.eks.send(new DescribeClusterCommand({ name: o.cluster }))).cluster;
    rows.push({
      id: 'region.cluster',
      status: 'pass',
      detail: `cluster ${o.cluster} is ${cluster?.status} in ${o.region}`,
    });
    if (cluster) rows.push(authenticationModeRow(cluster), endpointAccessRow(cluster));
  } catch (e) {
    if ((e as Error).name !== 'ResourceNotFoundException') throw e;
    rows.push({
      id: 'region.cluster',
      status: 'fail',
      detail: `no cluster ${o.cluster} in ${o.region}`,
      fix: 'pass --region of the cluster: pod-doctor is deployed into the region of the clusters it watches (one stack per region)',
    });
  }
  rows.push(
    o.region === 'us-east-1'
      ? { id: 'region.iam-events', status: 'pass', detail: 'us-east-1 receives IAM events (node-role policy changes)' }
      : {
          id: 'region.iam-events',
          status: 'warn',
          detail: `IAM events reach EventBridge in us-east-1 only; a stack in ${o.region} does not see node-role policy changes by itself`,
          fix: 'set "forwardIamEvents": true in the pod-doctor configuration (adds a forwarding rule in us-east-1; cdk deploy --all)',
        },
  );
  return rows;
}

async function checkTrail(c: PreflightClients, o: PreflightOptions): Promise<PreflightRow> {
  const reading = await trailSignal(c.cloudtrail, o.region);
  if (reading.status === 'ok') return { id: 'cloudtrail.trail', status: 'pass', detail: reading.detail };
  return {
    id: 'cloudtrail.trail',
    status: 'fail',
    detail: reading.detail,
    fix: 'EventBridge receives "AWS API Call via CloudTrail" events only from a trail that logs management events: aws cloudtrail create-trail --name pod-doctor --s3-bucket-name BUCKET --is-multi-region-trail && aws cloudtrail start-logging --name pod-doctor',
  };
}

async function checkLogGroup(c: PreflightClients, o: PreflightOptions): Promise<PreflightRow[]> {
  const name = dataplaneLogGroup(o.cluster);
  const groups = (await c.logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: name }))).logGroups ?? [];
  if (!groups.some((g) => g.logGroupName === name))
    return [
      {
        id: 'logs.dataplane',
        status: 'fail',
        detail: `log group ${name} does not exist`,
        fix: `install Container Insights (EKS add-on amazon-cloudwatch-observability); it creates ${name} on its first flush. pod-doctor creates a missing group at deploy, but it stays empty without Container Insights`,
      },
    ];
  const filters =
    (await c.logs.send(new DescribeSubscriptionFiltersCommand({ logGroupName: name }))).subscriptionFilters ?? [];
  return [
    { id: 'logs.dataplane', status: 'pass', detail: `log group ${name} exists` },
    filters.length >= 2
      ? {
          id: 'logs.subscription-filters',
          status: 'fail',
          detail: `${name} already has ${filters.length} subscription filters (${filters.map((f) => f.filterName).join(', ')}); CloudWatch Logs allows 2`,
          fix: 'remove one of them (aws logs delete-subscription-filter) or send pod-doctor another log group; the deployment fails otherwise',
        }
      : {
          id: 'logs.subscription-filters',
          status: 'pass',
          detail: `${filters.length} of 2 subscription filters used; pod-doctor adds 1`,
        },
    await checkIpamdLogs(c, o, name),
  ];
}

async function checkIpamdLogs(c: PreflightClients, o: PreflightOptions, logGroupName: string): Promise<PreflightRow> {
  const now = (o.now ?? new Date()).getTime();
  const found = await c.logs.send(
    new FilterLogEventsCommand({ logGroupName, filterPattern: '"ipamd"', startTime: now - 86_400_000, limit: 1 }),
  );
  if (found.events?.length)
    return {
      id: 'logs.ipamd',
      status: 'pass',
      detail: `ipamd lines reach ${logGroupName} (AWS_VPC_K8S_CNI_LOG_FILE=stdout)`,
    };
  return {
    id: 'logs.ipamd',
    status: 'unknown',
    detail: `no ipamd line in ${logGroupName} in the last 24 h: either ipamd logs to a file on the node or it had nothing to say`,
    fix: `ship ipamd logs: aws eks update-addon --cluster-name ${o.cluster} --addon-name vpc-cni --configuration-values '{"env":{"AWS_VPC_K8S_CNI_LOG_FILE":"stdout"}}'`,
  };
}

async function instanceInformation(c: PreflightClients, ids: readonly string[]): Promise<InstanceInformation[]> {
  const out: InstanceInformation[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    let token: string | undefined;
    do {
      const page = await c.ssm.send(
        new DescribeInstanceInformationCommand({
          Filters: [{ Key: 'InstanceIds', Values: ids.slice(i, i + 50) }],
          NextToken: token,
        }),
      );
      out.push(...(page.InstanceInformationList ?? []));
      token = page.NextToken;
    } while (token);
  }
  return out;
}

function checkSsmAgent(nodes: readonly Instance[], info: readonly InstanceInformation[]): PreflightRow {
  const byId = new Map(info.map((x) => [x.InstanceId, x]));
  const problems = nodes.flatMap((n) => {
    const x = byId.get(n.InstanceId);
    if (!x) return [`${n.InstanceId}: not managed by SSM`];
    if (x.PingStatus !== 'Online') return [`${n.InstanceId}: agent ${x.PingStatus}`];
    if (compareVersions(x.AgentVersion ?? '0', MIN_SSM_AGENT) < 0)
      return [`${n.InstanceId}: agent ${x.AgentVersion} < ${MIN_SSM_AGENT}`];
    return [];
  });
  if (nodes.length === 0)
    return { id: 'ssm.agent', status: 'unknown', detail: 'no running node of the cluster found to check' };
  if (problems.length === 0)
    return {
      id: 'ssm.agent',
      status: 'pass',
      detail: `${nodes.length} node(s) online in SSM with agent ≥ ${MIN_SSM_AGENT}`,
    };
  return {
    id: 'ssm.agent',
    status: 'fail',
    detail: problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : ''),
    fix: `nodes need AmazonSSMManagedInstanceCore on their role and SSM agent ≥ ${MIN_SSM_AGENT} (document parameters as environment variables); update with the AWS-UpdateSSMAgent document or a current EKS AMI`,
  };
}

function checkNodeTags(cluster: string, nodes: readonly Instance[]): PreflightRow {
  const untagged = nodes.filter((n) => clusterOfTags(n.Tags) !== cluster).map((n) => n.InstanceId);
  const accepted = [
    ...CLUSTER_NAME_TAGS.map((t) => `${t}=${cluster}`),
    `${CLUSTER_OWNERSHIP_TAG_PREFIX}${cluster}=owned`,
  ];
  if (nodes.length === 0)
    return { id: 'nodes.tags', status: 'unknown', detail: 'no running node of the cluster found to check' };
  if (untagged.length === 0)
    return { id: 'nodes.tags', status: 'pass', detail: `${nodes.length} node(s) carry a tag SendCommand accepts` };
  return {
    id: 'nodes.tags',
    status: 'fail',
    detail: `${untagged.length} of ${nodes.length} node(s) carry none of the tags SendCommand requires: ${untagged.slice(0, 5).join(', ')}`,
    fix: `tag the nodes (launch template tag specifications) with one of: ${accepted.join(' | ')}`,
  };
}

async function checkSsmEndpoints(
  c: PreflightClients,
  o: PreflightOptions,
  { vpcId, nodes }: ClusterNodes,
): Promise<PreflightRow> {
  const subnets = [...new Set(nodes.map((n) => n.SubnetId).filter((s): s is string => !!s))];
  if (subnets.length === 0)
    return { id: 'vpc.ssm-endpoints', status: 'unknown', detail: 'no running node of the cluster found to check' };
  const isolated: string[] = [];
  for (const subnetId of subnets)
    if (!internetRoute(await nodeRouteTable(c.ec2, { subnetId, vpcId }))) isolated.push(subnetId);
  if (isolated.length === 0)
    return { id: 'vpc.ssm-endpoints', status: 'pass', detail: 'node subnets reach SSM through their internet route' };
  const present = new Set<string>();
  for await (const page of paginateDescribeVpcEndpoints(
    { client: c.ec2 },
    { Filters: [{ Name: 'vpc-id', Values: [vpcId ?? ''] }] },
  )) {
    for (const ep of page.VpcEndpoints ?? [])
      if (ep.VpcId === vpcId && ep.State?.toLowerCase() === 'available' && ep.PrivateDnsEnabled)
        present.add(ep.ServiceName ?? '');
  }
  const missing = SSM_ENDPOINT_SERVICES.filter((s) => !present.has(`com.amazonaws.${o.region}.${s}`));
  if (missing.length === 0)
    return {
      id: 'vpc.ssm-endpoints',
      status: 'pass',
      detail: `subnets without internet route (${isolated.join(', ')}) have the ssm, ssmmessages and ec2messages endpoints`,
    };
  return {
    id: 'vpc.ssm-endpoints',
    status: 'fail',
    detail: `subnets ${isolated.join(', ')} have no internet route and ${vpcId} lacks endpoint(s) ${missing.join(', ')} (available, private DNS on)`,
    fix: `create interface endpoints com.amazonaws.${o.region}.{${missing.join(',')}} with private DNS in ${vpcId}, security group allowing TCP 443 from the nodes`,
  };
}

/** Runs a check; what it cannot read becomes an `unknown` row, never a pass. */
async function guarded(id: string, check: () => Promise<PreflightRow | PreflightRow[]>): Promise<PreflightRow[]> {
  try {
    return [await check()].flat();
  } catch (e) {
    const err = e as Error;
    return [{ id, status: 'unknown', detail: `could not check: ${err.name}: ${err.message.split('\n')[0]}` }];
  }
}

/** Every preflight check, read-only, in table order. */
export async function preflight(c: PreflightClients, o: PreflightOptions): Promise<PreflightRow[]> {
  const rows = [
    ...(await guarded('region.cluster', () => checkRegion(c, o))),
    ...(await guarded('cloudtrail.trail', () => checkTrail(c, o))),
    ...(await guarded('logs.dataplane', () => checkLogGroup(c, o))),
  ];
  let nodes: ClusterNodes | undefined;
  const nodeRows = await guarded('nodes', async () => {
    nodes = await clusterNodes(c, o);
    return [];
  });
  if (!nodes) return [...rows, ...nodeRows];
  const found = nodes;
  return [
    ...rows,
    ...(await guarded('ssm.agent', async () =>
      checkSsmAgent(
        found.nodes,
        await instanceInformation(
          c,
          found.nodes.map((n) => n.InstanceId ?? ''),
        ),
      ),
    )),
    checkNodeTags(o.cluster, found.nodes),
    ...(await guarded('vpc.ssm-endpoints', () => checkSsmEndpoints(c, o, found))),
  ];
}
