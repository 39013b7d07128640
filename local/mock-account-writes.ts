import type { IpPermission } from '@aws-sdk/client-ec2';
import {
  AttachRolePolicyCommand,
  DetachRolePolicyCommand,
  type IAMClientResolvedConfig,
  type ServiceInputTypes as IamInput,
  type ServiceOutputTypes as IamOutput,
  NoSuchEntityException,
  SimulatePrincipalPolicyCommand,
} from '@aws-sdk/client-iam';
import type { AwsStub } from 'aws-sdk-client-mock';
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSubnetCidrReservationCommand,
  DeleteSubnetCidrReservationCommand,
  RevokeSecurityGroupIngressCommand,
} from '../lambdas/aws/door/ec2-writes.js';
import { Ec2ServiceError } from '../lambdas/aws/ec2/client.js';
import { evaluate, type NamedPolicy, type PolicyDocument } from '../lambdas/core/policy/iam-policy.js';
import { parseCidr } from '../lambdas/core/remedy/cidr.js';
import type { AccountSnapshot } from './account-snapshot.js';
import type { Ec2Double } from './ec2-double.js';

/** Wraps an answer with the fault injection and metadata of the recorded account. */
export type Answer = <T>(name: string, answer: (input: T) => object) => (input: T) => Promise<object>;

/** A write the account accepts and then undoes (e.g. a Firewall Manager or drift-correction policy). */
export interface WriteFaults {
  readonly revert?: readonly string[];
  /** Another actor's change, made right after the named write succeeds (a race the verification must catch). */
  readonly onWrite?: Readonly<Record<string, () => void>>;
}

const meta = {
  httpStatusCode: 400,
  requestId: '5c1a8f3e-8d2b-4c9e-9a55-0c6f1d2e3a4b',
  attempts: 1,
  totalRetryDelay: 0,
};
const ec2Error = (code: string, message: string) => new Ec2ServiceError(code, message, meta);

function roleOf(a: AccountSnapshot, name: string | undefined) {
  const role = a.roles[name ?? ''];
  if (!role)
    throw new NoSuchEntityException({
      message: `The role with name ${name} cannot be found.`,
      $metadata: { ...meta, httpStatusCode: 404 },
    });
  return role;
}

/** IAM's decision for one action: identity policies, then the permissions boundary when the role has one. */
export function simulate(a: AccountSnapshot, roleName: string, action: string, resource = '*'): string {
  const role = roleOf(a, roleName);
  const managed = (arn: string): NamedPolicy => ({
    name: arn,
    document: (a.managedPolicies[arn] ?? { Statement: [] }) as PolicyDocument,
  });
  const identity = [
    ...role.attached.map(managed),
    ...Object.entries(role.inline).map(([name, d]) => ({ name, document: d as PolicyDocument })),
  ];
  const d = evaluate(identity, action, resource).decision;
  if (d === 'denied') return 'explicitDeny';
  if (d !== 'allowed') return 'implicitDeny';
  if (
    role.permissionsBoundary &&
    evaluate([managed(role.permissionsBoundary)], action, resource).decision !== 'allowed'
  )
    return 'implicitDeny';
  return 'allowed';
}

const samePair = (p: IpPermission, q: IpPermission) =>
  p.IpProtocol === q.IpProtocol &&
  p.FromPort === q.FromPort &&
  p.ToPort === q.ToPort &&
  (p.UserIdGroupPairs ?? []).some((u) => (q.UserIdGroupPairs ?? []).some((v) => v.GroupId === u.GroupId));

/** The writes the account remedies make, applied to the snapshot so every later read sees them. */
export function mockWrites(
  account: AccountSnapshot,
  stubs: {
    iam: AwsStub<IamInput, IamOutput, IAMClientResolvedConfig>;
    ec2: Ec2Double;
  },
  on: Answer,
  faults: WriteFaults = {},
): void {
  mockRolePolicyWrites(account, stubs.iam, on, faults);
  mockSecurityGroupWrites(account, stubs.ec2, on, faults);
}

/** Is the named write one the account accepts and then undoes? */
const revertedBy = (faults: WriteFaults) => (name: string) => faults.revert?.includes(name) ?? false;

/** IAM: managed policies attached to and detached from roles, and the policy simulator over the result. */
function mockRolePolicyWrites(
  account: AccountSnapshot,
  iam: AwsStub<IamInput, IamOutput, IAMClientResolvedConfig>,
  on: Answer,
  faults: WriteFaults,
): void {
  const reverted = revertedBy(faults);
  iam.on(AttachRolePolicyCommand).callsFake(
    on('AttachRolePolicyCommand', (i: { RoleName?: string; PolicyArn?: string }) => {
      const role = roleOf(account, i.RoleName);
      if (!account.managedPolicies[i.PolicyArn ?? ''])
        throw new NoSuchEntityException({
          message: `Policy ${i.PolicyArn} does not exist or is not attachable.`,
          $metadata: { ...meta, httpStatusCode: 404 },
        });
      if (!reverted('AttachRolePolicyCommand') && !role.attached.includes(i.PolicyArn ?? ''))
        role.attached.push(i.PolicyArn ?? '');
      return {};
    }),
  );
  iam.on(DetachRolePolicyCommand).callsFake(
    on('DetachRolePolicyCommand', (i: { RoleName?: string; PolicyArn?: string }) => {
      const role = roleOf(account, i.RoleName);
      if (!role.attached.includes(i.PolicyArn ?? ''))
        throw new NoSuchEntityException({
          message: `Policy ${i.PolicyArn} was not found.`,
          $metadata: { ...meta, httpStatusCode: 404 },
        });
      role.attached = role.attached.filter((p) => p !== i.PolicyArn);
      return {};
    }),
  );
  iam.on(SimulatePrincipalPolicyCommand).callsFake(
    on(
      'SimulatePrincipalPolicyCommand',
      (i: { PolicySourceArn?: string; ActionNames?: string[]; ResourceArns?: string[] }) => {
        const roleName = i.PolicySourceArn?.split('/').pop() ?? '';
        return {
          EvaluationResults: (i.ActionNames ?? []).flatMap((action) =>
            (i.ResourceArns ?? ['*']).map((resource) => ({
              EvalActionName: action,
              EvalResourceName: resource,
              EvalDecision: simulate(account, roleName, action, resource),
            })),
          ),
          IsTruncated: false,
        };
      },
    ),
  );
}

/** EC2: ingress rules authorized on and revoked from security groups (duplicates and missing rules refused). */
function mockSecurityGroupWrites(account: AccountSnapshot, ec2: Ec2Double, on: Answer, faults: WriteFaults): void {
  const reverted = revertedBy(faults);
  const group = (id: string | undefined) => {
    const g = account.securityGroups.find((x) => x.GroupId === id);
    if (!g) throw ec2Error('InvalidGroup.NotFound', `The security group '${id}' does not exist`);
    return g;
  };
  let ruleSeq = 0;
  ec2.on(AuthorizeSecurityGroupIngressCommand).callsFake(
    on('AuthorizeSecurityGroupIngressCommand', (i: { GroupId?: string; IpPermissions?: IpPermission[] }) => {
      const g = group(i.GroupId);
      const wanted = i.IpPermissions ?? [];
      if (wanted.some((p) => (g.IpPermissions ?? []).some((q) => samePair(p, q))))
        throw ec2Error('InvalidPermission.Duplicate', 'the specified rule already exists');
      if (!reverted('AuthorizeSecurityGroupIngressCommand')) g.IpPermissions = [...(g.IpPermissions ?? []), ...wanted];
      ruleSeq++;
      return {
        Return: true,
        SecurityGroupRules: wanted.map((p, n) => ({
          SecurityGroupRuleId: `sgr-0${String(ruleSeq * 10 + n).padStart(16, '0')}`,
          GroupId: g.GroupId,
          IsEgress: false,
          IpProtocol: p.IpProtocol,
          FromPort: p.FromPort,
          ToPort: p.ToPort,
          ReferencedGroupInfo: { GroupId: p.UserIdGroupPairs?.[0]?.GroupId },
        })),
      };
    }),
  );
  ec2.on(RevokeSecurityGroupIngressCommand).callsFake(
    on('RevokeSecurityGroupIngressCommand', (i: { GroupId?: string; IpPermissions?: IpPermission[] }) => {
      const g = group(i.GroupId);
      const wanted = i.IpPermissions ?? [];
      const kept = (g.IpPermissions ?? []).filter((q) => !wanted.some((p) => samePair(p, q)));
      if (kept.length === (g.IpPermissions ?? []).length)
        throw ec2Error('InvalidPermission.NotFound', 'The specified rule does not exist in this security group.');
      g.IpPermissions = kept;
      return { Return: true };
    }),
  );
}

/** Subnet CIDR reservations: created inside the subnet without overlapping another, deleted by id. */
export function mockReservationWrites(
  account: AccountSnapshot,
  ec2: Ec2Double,
  on: Answer,
  faults: WriteFaults = {},
): void {
  let seq = 0;
  ec2.on(CreateSubnetCidrReservationCommand).callsFake(
    on(
      'CreateSubnetCidrReservationCommand',
      (i: { SubnetId?: string; Cidr?: string; ReservationType?: 'prefix' | 'explicit'; Description?: string }) => {
        const subnet = account.subnets.find((x) => x.SubnetId === i.SubnetId);
        if (!subnet?.CidrBlock)
          throw ec2Error('InvalidSubnetID.NotFound', `The subnet ID '${i.SubnetId}' does not exist`);
        const s = parseCidr(subnet.CidrBlock);
        const c = parseCidr(i.Cidr ?? '');
        if (c.start < s.start || c.start + c.size > s.start + s.size)
          throw ec2Error(
            'InvalidParameterValue',
            `The CIDR ${i.Cidr} is not within the subnet CIDR ${subnet.CidrBlock}`,
          );
        account.cidrReservations[i.SubnetId ?? ''] ??= [];
        const list = account.cidrReservations[i.SubnetId ?? ''];
        const overlaps = list.some((r) => {
          const o = parseCidr(r.Cidr ?? '');
          return c.start < o.start + o.size && o.start < c.start + c.size;
        });
        if (overlaps)
          throw ec2Error('InvalidSubnetCidrReservation.Overlap', `The CIDR ${i.Cidr} overlaps an existing reservation`);
        seq++;
        const r = {
          SubnetCidrReservationId: `scr-0${String(seq).padStart(16, '0')}`,
          SubnetId: i.SubnetId,
          Cidr: i.Cidr,
          ReservationType: i.ReservationType,
          OwnerId: account.accountId,
          Description: i.Description,
        };
        list.push(r);
        faults.onWrite?.CreateSubnetCidrReservationCommand?.();
        return { SubnetCidrReservation: r };
      },
    ),
  );
  ec2.on(DeleteSubnetCidrReservationCommand).callsFake(
    on('DeleteSubnetCidrReservationCommand', (i: { SubnetCidrReservationId?: string }) => {
      for (const [subnet, list] of Object.entries(account.cidrReservations)) {
        const r = list.find((x) => x.SubnetCidrReservationId === i.SubnetCidrReservationId);
        if (r) {
          account.cidrReservations[subnet] = list.filter((x) => x !== r);
          return { DeletedSubnetCidrReservation: r };
        }
      }
      throw ec2Error('InvalidSubnetCidrReservationID.NotFound', `${i.SubnetCidrReservationId} does not exist`);
    }),
  );
}
