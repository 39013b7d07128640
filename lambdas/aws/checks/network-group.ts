import { type Finding, runCheck } from '../../core/contract/findings.js';
import { type GroupRunner, inputImage, requireNode } from '../readers/account/check-input.js';
import { checkEndpoints, checkSubnet } from '../readers/account/network-checks.js';

const ENDPOINT_IDS = ['vpc.endpoint.ecr-api', 'vpc.endpoint.ecr-dkr', 'vpc.endpoint.sg-443', 'vpc.endpoint.s3-gateway'];
const SUBNET_IDS = ['subnet.free-ips', 'subnet.free-prefix-blocks'];

/** One failed call errors every finding of its group, not just the first id. */
const spread = (got: Finding[], ids: string[]) =>
  got.length === 1 && got[0].status === 'error' ? ids.map((id) => ({ ...got[0], id })) : got;

/** Group "network": ECR/S3 endpoints reachable from the node; free IPs and /28 blocks in its subnet. */
export const runNetworkGroup: GroupRunner<'ec2'> = async (input, clients) => {
  const node = requireNode('network', input);
  const n = { node, region: inputImage(input).ecrImage?.region ?? input.region, neededIps: input.neededIps };
  const endpoints = await runCheck(ENDPOINT_IDS[0], () => checkEndpoints(clients.ec2, n));
  const subnet = await runCheck(SUBNET_IDS[0], () => checkSubnet(clients.ec2, n));
  return [...spread(endpoints, ENDPOINT_IDS), ...spread(subnet, SUBNET_IDS)];
};
