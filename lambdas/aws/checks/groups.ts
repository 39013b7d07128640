import type { EC2Client } from '@aws-sdk/client-ec2';
import type { ECRClient } from '@aws-sdk/client-ecr';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { IAMClient } from '@aws-sdk/client-iam';
import { z } from 'zod';
import type { ChangeReader } from '../../core/change-records.js';
import { type Finding, finding, runCheck } from '../../core/findings.js';
import { parseEcrImage } from '../../core/images.js';
import { checkRecentChanges } from './change-checks.js';
import { checkImageExists, checkRepositoryPolicy } from './ecr-checks.js';
import { checkAddonVersions, checkEniCapacity, checkNodeAmi } from './eks-checks.js';
import { checkCniPolicy, checkNodeRoleEcrRead } from './iam-checks.js';
import { checkEndpoints, checkSubnet } from './network-checks.js';
import type { NodeContext } from './node-context.js';

/** SDK clients the checks use, created once by the caller. ECR is per region (images may live elsewhere). */
export interface CheckClients {
  readonly ec2: EC2Client;
  readonly iam: IAMClient;
  readonly eks: EKSClient;
  /** The change index (breaking changes indexed as EventBridge delivered them). */
  readonly changes: ChangeReader;
  ecr(region: string): ECRClient;
}

const nodeSchema = z.object({
  instanceId: z.string().regex(/^i-[0-9a-f]{8,17}$/),
  privateDnsName: z.string().optional(),
  clusterName: z.string().optional(),
  nodegroupName: z.string().optional(),
  instanceType: z.string().optional(),
  architecture: z.string().optional(),
  subnetId: z.string().optional(),
  vpcId: z.string().optional(),
  availabilityZone: z.string().optional(),
  securityGroupIds: z.array(z.string()).default([]),
  privateIp: z.string().optional(),
  amiId: z.string().optional(),
  instanceProfileArn: z.string().optional(),
  roleName: z.string().optional(),
  roleArn: z.string().optional(),
});

export const checkInputSchema = z.object({
  /** The resolved node; iam, network and eks checks need it, ecr and changes use it when present. */
  node: z.preprocess((v) => (v && typeof v === 'object' && 'instanceId' in v ? v : undefined), nodeSchema.optional()),
  cluster: z.string().min(1),
  region: z.string().regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/),
  image: z.string().optional(),
  /** Incident entities (the image is taken from there when `image` is absent). */
  entities: z.record(z.string(), z.string()).optional(),
  neededIps: z.number().int().min(1).default(16),
  lookbackHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(72),
});

export type CheckInput = z.output<typeof checkInputSchema>;
export const CHECK_GROUPS = ['iam', 'ecr', 'network', 'eks', 'changes'] as const;
export type CheckGroup = (typeof CHECK_GROUPS)[number];

/** Thrown when a check group is called with input it cannot use (the workflow catches it by name). */
export class CheckInputError extends Error {
  override readonly name = 'CheckInputError';
}

export function parseCheckInput(raw: unknown): CheckInput {
  const r = checkInputSchema.safeParse(raw);
  if (!r.success) throw new CheckInputError(r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return r.data;
}

/** Runs one check group; every check either returns findings or an `error` finding, never throws. */
export async function runCheckGroup(
  group: CheckGroup,
  input: CheckInput,
  clients: CheckClients,
  now: Date,
): Promise<Finding[]> {
  const image = input.image ?? input.entities?.image;
  const ecrImage = image ? parseEcrImage(image) : undefined;
  if (!input.node && (group === 'iam' || group === 'network' || group === 'eks')) {
    throw new CheckInputError(`the ${group} checks need a resolved node`);
  }
  const node = (input.node ?? { instanceId: 'unknown', securityGroupIds: [] }) as NodeContext;
  switch (group) {
    case 'iam':
      return [
        ...(await runCheck('iam.node-role.ecr-read', () =>
          checkNodeRoleEcrRead(clients.iam, node, ecrImage?.repositoryArn),
        )),
        ...(await runCheck('iam.cni-policy', () => checkCniPolicy(clients.iam, clients.eks, input.cluster, node))),
      ];
    case 'ecr': {
      if (!ecrImage) {
        const why = input.image ? `${input.image} is not an ECR image` : 'no image in the incident';
        return [
          finding('ecr.repository-policy', 'pass', `${why}: no ECR repository policy involved`, {
            image: input.image ?? null,
          }),
          finding('ecr.image-exists', 'warn', `${why}: existence not checked against ECR`, {
            image: input.image ?? null,
          }),
        ];
      }
      const ecr = clients.ecr(ecrImage.region);
      return [
        ...(input.node
          ? await runCheck('ecr.repository-policy', () => checkRepositoryPolicy(ecr, node, ecrImage))
          : [
              finding(
                'ecr.repository-policy',
                'warn',
                'node unknown: the repository policy was not evaluated for its role',
                { repository: ecrImage.repositoryArn },
              ),
            ]),
        ...(await runCheck('ecr.image-exists', () => checkImageExists(ecr, clients.changes, ecrImage, now))),
      ];
    }
    case 'network': {
      const n = { node, region: ecrImage?.region ?? input.region, neededIps: input.neededIps };
      const endpointIds = [
        'vpc.endpoint.ecr-api',
        'vpc.endpoint.ecr-dkr',
        'vpc.endpoint.sg-443',
        'vpc.endpoint.s3-gateway',
      ];
      const subnetIds = ['subnet.free-ips', 'subnet.free-prefix-blocks'];
      const endpoints = await runCheck(endpointIds[0], () => checkEndpoints(clients.ec2, n));
      const subnet = await runCheck(subnetIds[0], () => checkSubnet(clients.ec2, n));
      // One failed call errors every finding of its group, not just the first id.
      const spread = (got: Finding[], ids: string[]) =>
        got.length === 1 && got[0].status === 'error' ? ids.map((id) => ({ ...got[0], id })) : got;
      return [...spread(endpoints, endpointIds), ...spread(subnet, subnetIds)];
    }
    case 'eks':
      return [
        ...(await runCheck('eks.addon-versions', () => checkAddonVersions(clients.eks, input.cluster))),
        ...(await runCheck('eks.node-ami', () => checkNodeAmi(clients.eks, input.cluster, node, now))),
        ...(await runCheck('node.eni-capacity', () => checkEniCapacity(clients.ec2, node))),
      ];
    case 'changes':
      return runCheck('change.recent', () =>
        checkRecentChanges(
          clients.changes,
          {
            resources: [
              node.roleName ?? '',
              ...node.securityGroupIds,
              ecrImage?.repository ?? '',
              input.cluster,
              node.subnetId ?? '',
            ],
            lookbackHours: input.lookbackHours,
          },
          now,
        ),
      );
  }
}
