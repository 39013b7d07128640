import {
  CreatePullThroughCacheRuleCommand,
  DeletePullThroughCacheRuleCommand,
  type ECRClient,
  paginateDescribePullThroughCacheRules,
  ValidatePullThroughCacheRuleCommand,
} from '@aws-sdk/client-ecr';
import {
  AttachRolePolicyCommand,
  DetachRolePolicyCommand,
  type IAMClient,
  paginateListAttachedRolePolicies,
  paginateSimulatePrincipalPolicy,
} from '@aws-sdk/client-iam';
import type { Finding } from '../../core/contract/findings.js';
import type { CidrReservationPort } from '../../core/remedy/cidr-reservation.js';
import type { ManagedPolicyPort, RecheckResult } from '../../core/remedy/managed-policy.js';
import type { CacheRule, PullThroughCachePort } from '../../core/remedy/pull-through-cache.js';
import type { IngressRule, SgIngressPort } from '../../core/remedy/sg-ingress.js';
import { DescribeSecurityGroupsCommand, type Ec2Client } from '../ec2/commands.js';
import { subnetUsage } from '../readers/account/subnet-usage.js';
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSubnetCidrReservationCommand,
  DeleteSubnetCidrReservationCommand,
  RevokeSecurityGroupIngressCommand,
} from './ec2-writes.js';
import { RecheckTargetError } from './executor.js';

export { RecheckTargetError };

/**
 * A re-run diagnosis check, reduced to what the apply path compares. With `role`, the role the check
 * found (the role aws-node really uses) must be the target's.
 */
export async function recheckOf(
  run: () => Promise<Finding | Finding[]>,
  id: string,
  role?: string,
): Promise<RecheckResult> {
  const got = await run();
  const f = (Array.isArray(got) ? got : [got]).find((x) => x.id === id);
  if (!f) throw new Error(`the re-check returned no ${id} finding`);
  if (role !== undefined && f.evidence.role !== undefined && f.evidence.role !== role)
    throw new RecheckTargetError(`${id} is about role ${String(f.evidence.role)}, not ${role}: nothing changed`);
  return { status: f.status, summary: f.summary };
}

/** IAM side of attach-managed-policy. */
export function iamPort(iam: IAMClient, recheck: () => Promise<RecheckResult>): ManagedPolicyPort {
  return {
    async attachedPolicies(roleName) {
      const out: string[] = [];
      for await (const page of paginateListAttachedRolePolicies({ client: iam }, { RoleName: roleName }))
        for (const p of page.AttachedPolicies ?? []) if (p.PolicyArn) out.push(p.PolicyArn);
      return out;
    },
    async attach(roleName, policyArn) {
      await iam.send(new AttachRolePolicyCommand({ RoleName: roleName, PolicyArn: policyArn }));
    },
    async detach(roleName, policyArn) {
      await iam.send(new DetachRolePolicyCommand({ RoleName: roleName, PolicyArn: policyArn }));
    },
    recheck,
    async simulate(roleArn, actions) {
      const out: Record<string, string> = {};
      for await (const page of paginateSimulatePrincipalPolicy(
        { client: iam },
        { PolicySourceArn: roleArn, ActionNames: [...actions] },
      ))
        for (const r of page.EvaluationResults ?? [])
          if (r.EvalActionName) out[r.EvalActionName] = r.EvalDecision ?? '';
      return out;
    },
  };
}

/** EC2 side of add-sg-rule: rules are read from DescribeSecurityGroups, added and revoked by their exact spec. */
export function sgPort(ec2: Ec2Client, recheck: () => Promise<RecheckResult>): SgIngressPort {
  const spec = (sourceGroupId: string, port: number, description?: string) => [
    {
      IpProtocol: 'tcp',
      FromPort: port,
      ToPort: port,
      UserIdGroupPairs: [{ GroupId: sourceGroupId, ...(description ? { Description: description } : {}) }],
    },
  ];
  return {
    async ingressRules(groupId) {
      const g = (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }))).SecurityGroups?.[0];
      if (!g) throw new Error(`security group ${groupId} not found`);
      const rules: IngressRule[] = [];
      for (const p of g.IpPermissions ?? []) {
        const base = { protocol: p.IpProtocol ?? '-1', fromPort: p.FromPort ?? 0, toPort: p.ToPort ?? 65535 };
        for (const u of p.UserIdGroupPairs ?? []) rules.push({ ...base, ruleId: '', source: u.GroupId ?? '' });
        for (const r of p.IpRanges ?? []) rules.push({ ...base, ruleId: '', source: r.CidrIp ?? '' });
      }
      return rules;
    },
    async authorize(groupId, sourceGroupId, port, description) {
      const r = await ec2.send(
        new AuthorizeSecurityGroupIngressCommand({
          GroupId: groupId,
          IpPermissions: spec(sourceGroupId, port, description),
        }),
      );
      return r.SecurityGroupRules?.[0]?.SecurityGroupRuleId ?? '';
    },
    async revoke(groupId, _ruleId, sourceGroupId, port) {
      try {
        await ec2.send(
          new RevokeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: spec(sourceGroupId, port) }),
        );
      } catch (e) {
        // Already gone (another actor removed it): the rollback's goal holds; the re-read proves it.
        if ((e as Error).name !== 'InvalidPermission.NotFound') throw e;
      }
    },
    recheck,
  };
}

/** EC2 side of create-cidr-reservation. */
export function cidrPort(ec2: Ec2Client, recheck: () => Promise<RecheckResult>): CidrReservationPort {
  return {
    usage: async (subnetId) => (await subnetUsage(ec2, subnetId)).usage,
    async reserve(subnetId, cidr, description) {
      const r = await ec2.send(
        new CreateSubnetCidrReservationCommand({
          SubnetId: subnetId,
          Cidr: cidr,
          ReservationType: 'prefix',
          Description: description,
        }),
      );
      const id = r.SubnetCidrReservation?.SubnetCidrReservationId;
      if (!id) throw new Error('CreateSubnetCidrReservation returned no reservation id');
      return id;
    },
    async release(reservationId) {
      await ec2.send(new DeleteSubnetCidrReservationCommand({ SubnetCidrReservationId: reservationId }));
    },
    recheck,
  };
}

/** ECR side of create-pull-through-cache (the registry of the function's own account); IAM for the node roles. */
export function cachePort(ecr: ECRClient, fallbackRegistryId: string, iam: IAMClient): PullThroughCachePort {
  return {
    async nodeRoleDecisions(roleArn, actions, resources) {
      const out: Record<string, string> = {};
      for await (const page of paginateSimulatePrincipalPolicy(
        { client: iam },
        { PolicySourceArn: roleArn, ActionNames: [...actions], ResourceArns: [...resources] },
      ))
        for (const r of page.EvaluationResults ?? [])
          if (r.EvalActionName && out[r.EvalActionName] !== 'denied')
            out[r.EvalActionName] = r.EvalDecision === 'allowed' ? 'allowed' : 'denied';
      return out;
    },
    async rules() {
      const rules: CacheRule[] = [];
      let registryId = '';
      for await (const page of paginateDescribePullThroughCacheRules({ client: ecr }, {}))
        for (const r of page.pullThroughCacheRules ?? []) {
          registryId = r.registryId ?? registryId;
          rules.push({
            prefix: r.ecrRepositoryPrefix ?? '',
            upstreamUrl: r.upstreamRegistryUrl ?? '',
            ...(r.credentialArn ? { credentialArn: r.credentialArn } : {}),
          });
        }
      return { registryId: registryId || fallbackRegistryId, rules };
    },
    async create(prefix, upstreamUrl, credentialArn) {
      await ecr.send(
        new CreatePullThroughCacheRuleCommand({
          ecrRepositoryPrefix: prefix,
          upstreamRegistryUrl: upstreamUrl,
          upstreamRegistry: 'docker-hub',
          credentialArn,
        }),
      );
    },
    async delete(prefix) {
      await ecr.send(new DeletePullThroughCacheRuleCommand({ ecrRepositoryPrefix: prefix }));
    },
    async validate(prefix) {
      const r = await ecr.send(new ValidatePullThroughCacheRuleCommand({ ecrRepositoryPrefix: prefix }));
      return { valid: r.isValid === true, ...(r.failure ? { failure: r.failure } : {}) };
    },
  };
}
