import * as z from 'zod/mini';
import { type ApplyPath, type ApplyRecord, runApplyPath } from '../../core/remedy/apply-path.js';
import { cidrReservationPath } from '../../core/remedy/cidr-reservation.js';
import { managedPolicyPath } from '../../core/remedy/managed-policy.js';
import { pullThroughCachePath } from '../../core/remedy/pull-through-cache.js';
import { secondaryIpsPath } from '../../core/remedy/secondary-ips.js';
import { sgIngressPath } from '../../core/remedy/sg-ingress.js';
import type { RemediationScope, RemedyTarget } from '../../core/remedy/targets.js';
import type { WorkflowConfig } from '../../core/workflow-config.js';
import '../../core/zod-english.js';
import type { CheckClients } from '../checks/check-input.js';
import { checkCniPolicy, checkNodeRoleEcrRead } from '../checks/iam-checks.js';
import { checkEndpoints, checkSubnet } from '../checks/network-checks.js';
import type { NodeContext } from '../checks/node-context.js';
import { addonPort } from './addon-port.js';
import { cachePort, cidrPort, iamPort, recheckOf, sgPort } from './ports.js';

const matching = (re: RegExp) => z.string().check(z.regex(re));
const name = matching(/^[\w+=,.@/:-]{1,512}$/);
const SUBNET = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP = /^sg-[0-9a-f]{8,17}$/;
const description = () => z.string().check(z.maxLength(255));
const targetSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('attach-managed-policy'),
    roleName: name,
    roleArn: name,
    policyArn: name,
    findingId: z.enum(['iam.node-role.ecr-read', 'iam.cni-policy']),
    actions: z.array(matching(/^[a-z0-9-]+:[A-Za-z]+$/)).check(z.minLength(1)),
    reverts: z.optional(
      z.object({ eventId: z.optional(z.string()), by: z.optional(z.string()), at: z.optional(z.string()) }),
    ),
  }),
  z.object({
    kind: z.literal('add-sg-rule'),
    groupId: matching(SECURITY_GROUP),
    sourceGroupId: matching(SECURITY_GROUP),
    endpoints: z.array(z.string()),
    description: description(),
  }),
  z.object({
    kind: z.literal('create-cidr-reservation'),
    subnetId: matching(SUBNET),
    description: description(),
  }),
  z.object({
    kind: z.literal('create-pull-through-cache'),
    ecrRepositoryPrefix: matching(/^[a-z0-9][a-z0-9._/-]{1,29}$/),
    credentialArn: z.optional(
      matching(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:ecr-pullthroughcache\/[\w/+=.@-]+$/),
    ),
    images: z.array(z.string().check(z.maxLength(512))).check(z.maxLength(10)),
    nodeRoleArns: z._default(
      z.array(matching(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/)).check(z.maxLength(10)),
      [],
    ),
  }),
  z.object({
    kind: z.literal('use-secondary-ips'),
    clusterName: matching(/^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/),
    subnetId: matching(SUBNET),
  }),
]);

export const remedyInputSchema = z.object({
  phase: z.enum(['prepare', 'apply']),
  incidentId: z.string(),
  cluster: z.string(),
  region: z.string(),
  // A pull-through cache rule needs no node (the image scope may have none).
  node: z.looseObject({ instanceId: z.optional(z.string()) }),
  target: targetSchema,
});
export type RemedyInput = z.output<typeof remedyInputSchema>;

/** The target names a resource outside the configured scope: nothing is read or changed. */
export class RemedyScopeError extends Error {
  override readonly name = 'RemedyScopeError';
}

/** The clients the remedies use (their Lambda loads no other SDK client). */
export type RemedyClients = Pick<CheckClients, 'iam' | 'eks' | 'ec2' | 'ecr'>;

export interface RemedyDeps {
  readonly clients: RemedyClients;
  readonly config: WorkflowConfig;
  readonly now: () => number;
}

function scopeOf(config: WorkflowConfig, cluster: string): RemediationScope & { nodeRoles: readonly string[] } {
  const c = config.clusters.find((x) => x.name === cluster);
  if (!c) throw new RemedyScopeError(`cluster ${cluster} is not configured`);
  return { ...c.remediation, nodeRoles: c.nodeRoleArns };
}

function assertInScope(t: RemedyTarget, scope: RemediationScope & { nodeRoles: readonly string[] }): void {
  if (t.kind === 'attach-managed-policy' && !scope.roles.includes(t.roleName))
    throw new RemedyScopeError(`role ${t.roleName} is not in the cluster's remediation scope`);
  if (t.kind === 'add-sg-rule' && !scope.endpointSecurityGroups.includes(t.groupId))
    throw new RemedyScopeError(`security group ${t.groupId} is not in the cluster's remediation scope`);
  if (t.kind === 'create-cidr-reservation' && !scope.subnets.includes(t.subnetId))
    throw new RemedyScopeError(`subnet ${t.subnetId} is not in the cluster's remediation scope`);
  if (
    t.kind === 'create-pull-through-cache' &&
    (scope.pullThroughCache?.ecrRepositoryPrefix !== t.ecrRepositoryPrefix ||
      scope.pullThroughCache?.credentialArn !== t.credentialArn)
  )
    throw new RemedyScopeError("the pull-through cache rule is not the cluster's remediation.pullThroughCache");
  if (t.kind === 'create-pull-through-cache' && t.nodeRoleArns?.some((r) => !scope.nodeRoles.includes(r)))
    throw new RemedyScopeError("a node role of the target is not one of the cluster's nodeRoleArns");
  if (t.kind === 'use-secondary-ips' && !scope.vpcCniAddon)
    throw new RemedyScopeError("the cluster's remediation.vpcCniAddon is not set");
}

/** The apply path for a target, its ports bound to the SDK clients and its re-check to the diagnosis check. */
export function pathFor(input: RemedyInput, clients: RemedyClients): ApplyPath<unknown> {
  const node = input.node as unknown as NodeContext;
  const t = input.target;
  if (t.kind === 'attach-managed-policy') {
    const recheck =
      t.findingId === 'iam.cni-policy'
        ? () => recheckOf(() => checkCniPolicy(clients.iam, clients.eks, input.cluster, node), t.findingId)
        : () => recheckOf(() => checkNodeRoleEcrRead(clients.iam, node), t.findingId);
    return managedPolicyPath(t, iamPort(clients.iam, recheck)) as ApplyPath<unknown>;
  }
  if (t.kind === 'create-pull-through-cache') {
    const account = /^arn:[^:]+:secretsmanager:[^:]+:(\d{12}):/.exec(t.credentialArn ?? '')?.[1] ?? '';
    const port = cachePort(clients.ecr(input.region), account, clients.iam);
    return pullThroughCachePath(t, port, input.region) as ApplyPath<unknown>;
  }
  const network = { node, region: input.region, neededIps: 16 };
  if (t.kind === 'use-secondary-ips') {
    const recheck = () => recheckOf(() => checkSubnet(clients.ec2, network), 'subnet.free-prefix-blocks');
    return secondaryIpsPath(t, addonPort(clients.eks, clients.ec2, recheck)) as ApplyPath<unknown>;
  }
  if (t.kind === 'create-cidr-reservation') {
    const recheck = () => recheckOf(() => checkSubnet(clients.ec2, network), 'subnet.free-prefix-blocks');
    return cidrReservationPath(t, cidrPort(clients.ec2, recheck)) as ApplyPath<unknown>;
  }
  const recheck = () => recheckOf(() => checkEndpoints(clients.ec2, network), 'vpc.endpoint.sg-443');
  return sgIngressPath(t, sgPort(clients.ec2, recheck)) as ApplyPath<unknown>;
}

/** Prepare (re-check and dry-run diff) or apply (change, verify, roll back on failure) one remedy. */
export async function runRemedy(raw: unknown, deps: RemedyDeps): Promise<ApplyRecord> {
  return remedy(remedyInputSchema.parse(raw), deps);
}

/** {@link runRemedy} on input already parsed with {@link remedyInputSchema}. */
export async function remedy(input: RemedyInput, deps: RemedyDeps): Promise<ApplyRecord> {
  assertInScope(input.target, scopeOf(deps.config, input.cluster));
  return runApplyPath(pathFor(input, deps.clients), { dryRun: input.phase === 'prepare', now: deps.now });
}
