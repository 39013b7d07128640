/**
 * The pod-subnet capacity analyser for `npm run bench` (issue 35, part 2): its EC2 calls per
 * cluster-hour and its cost per cluster-month, for a cluster of three pod subnets with thousands of
 * ENIs (the EC2 API load that closed amazon-vpc-cni-k8s#3523). The reads (paged DescribeNetworkInterfaces,
 * MaxResults 1000) run against an EC2 double that answers as EC2 pages; the analysis (every /28
 * classified, owners, forecast, proposals) is measured on this machine.
 */
import type { Ec2Client } from '../lambdas/aws/ec2/commands.js';
import { readCapacity } from '../lambdas/aws/readers/account/subnet-capacity-read.js';
import { formatIpv4, parseCidr } from '../lambdas/core/remedy/cidr.js';
import { analyseSubnet, capacityProposals, forecastExhaustion } from '../lambdas/core/remedy/subnet-capacity.js';
import { LAMBDA_GB_SECOND_USD, LAMBDA_REQUEST_USD } from './detection.js';

/** ENIs per pod subnet (/18: 16,379 usable addresses; a busy secondary-IP cluster). */
const SUBNETS = [4_000, 2_500, 900];
const RUNS_PER_MONTH = 24 * 30;
const MEMORY_GB = 0.25;
/** An EC2 Describe call's round trip from Lambda in Region (assumed; EC2 Describe calls are not charged). */
const EC2_CALL_SECONDS = 0.15;
/** CloudWatch: custom metric $0.30/month (first 10,000), standard alarm $0.10/month (us-east-1 price list). */
const METRIC_USD = 0.3;
const ALARM_USD = 0.1;
/** Per subnet: FreeAlignedBlocks, FreeAddresses, FragmentationScore, HoursToNoFreeBlock; one alarm on the forecast. */
const METRICS_PER_SUBNET = 4;
const ALARMS_PER_SUBNET = 1;

function ec2(enisBySubnet: readonly number[]): Ec2Client {
  const ids = enisBySubnet.map((_, i) => `subnet-0${String(i).padStart(16, '0')}`);
  return {
    async send(c: { action: string; input: Record<string, unknown> }) {
      if (c.action === 'DescribeSubnets')
        return { Subnets: ids.map((SubnetId, i) => ({ SubnetId, CidrBlock: `10.${i}.0.0/18` })) };
      if (c.action === 'GetSubnetCidrReservations') return { SubnetIpv4CidrReservations: [] };
      const subnet = (c.input.Filters as { Values: string[] }[])[0]?.Values[0] ?? '';
      const i = ids.indexOf(subnet);
      const total = enisBySubnet[i] ?? 0;
      const start = Number(c.input.NextToken ?? 0);
      const max = c.input.MaxResults as number;
      const base = parseCidr(`10.${i}.0.0/18`).start + 16;
      const items = Array.from({ length: Math.max(0, Math.min(max, total - start)) }, (_, k) => ({
        NetworkInterfaceId: `eni-${i}-${start + k}`,
        Status: 'in-use',
        InterfaceType: 'interface',
        Attachment: { InstanceId: `i-0${String((start + k) % 200).padStart(16, '0')}`, DeviceIndex: 1 },
        // Three addresses per ENI, scattered the way secondary-IP allocation leaves them.
        PrivateIpAddresses: [0, 1, 2].map((j) => ({
          PrivateIpAddress: formatIpv4(base + (((start + k) * 3 + j * 7) % 16_000)),
        })),
      }));
      return { NetworkInterfaces: items, ...(start + max < total ? { NextToken: String(start + max) } : {}) };
    },
  } as unknown as Ec2Client;
}

export async function benchCapacity(): Promise<boolean> {
  const read = await readCapacity(
    ec2(SUBNETS),
    SUBNETS.map((_, i) => `subnet-0${String(i).padStart(16, '0')}`),
  );
  const calls = Object.values(read.calls).reduce((a, b) => a + b, 0);
  const nodes = new Set(Array.from({ length: 200 }, (_, i) => `i-0${String(i).padStart(16, '0')}`));
  const t0 = performance.now();
  for (const s of read.subnets) {
    const a = analyseSubnet(s, 'bench', nodes);
    const f = forecastExhaustion(
      Array.from({ length: 24 }, (_, h) => ({ at: h * 3_600_000, freeAlignedBlocks: a.freeAlignedBlocks + 24 - h })),
      72,
    );
    capacityProposals(s, a, f, { cluster: 'bench', nodes, now: 0, orphanAgeMs: 86_400_000 });
  }
  const analysisSeconds = (performance.now() - t0) / 1000;
  const runSeconds = analysisSeconds + calls * EC2_CALL_SECONDS;
  const lambda = RUNS_PER_MONTH * (runSeconds * MEMORY_GB * LAMBDA_GB_SECOND_USD + LAMBDA_REQUEST_USD);
  const cloudwatch = SUBNETS.length * (METRICS_PER_SUBNET * METRIC_USD + ALARMS_PER_SUBNET * ALARM_USD);
  const enis = SUBNETS.reduce((a, b) => a + b, 0);
  console.log('Capacity analyser (issue 35): one run an hour per cluster');
  console.log(
    `  ${SUBNETS.length} pod subnets, ${enis} ENIs: ${calls} EC2 calls per cluster-hour (${Object.entries(read.calls)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}; MaxResults 1000), ${RUNS_PER_MONTH * calls} per cluster-month; EC2 Describe calls are not charged`,
  );
  console.log(
    `  analysis of every /28, owners, forecast and proposals: ${(analysisSeconds * 1000).toFixed(0)} ms on this machine; a run ≈ ${runSeconds.toFixed(1)} s with ${EC2_CALL_SECONDS * 1000} ms per EC2 call (assumed)`,
  );
  console.log(
    `  cost per cluster-month: Lambda $${lambda.toFixed(3)} (${MEMORY_GB * 1024} MB) + CloudWatch $${cloudwatch.toFixed(2)} (${METRICS_PER_SUBNET} metrics and ${ALARMS_PER_SUBNET} alarm per subnet) = $${(lambda + cloudwatch).toFixed(2)}`,
  );
  return read.subnets.every((s) => !s.truncated) && calls <= 20;
}
