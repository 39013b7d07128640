import type { ApplyPath, Check } from './apply-path.js';

/** The AWS managed policies pod-doctor may attach, by name (the ARN's partition comes from the role). */
export const ATTACHABLE_POLICIES = [
  'AmazonEC2ContainerRegistryReadOnly',
  'AmazonEC2ContainerRegistryPullOnly',
  'AmazonEKS_CNI_Policy',
] as const;
export type AttachablePolicy = (typeof ATTACHABLE_POLICIES)[number];

/** Attach one AWS managed policy to a node role or the role aws-node uses. */
export interface ManagedPolicyTarget {
  readonly kind: 'attach-managed-policy';
  readonly roleName: string;
  readonly roleArn: string;
  readonly policyArn: string;
  /** The diagnosis finding this fixes (re-run before and after). */
  readonly findingId: 'iam.node-role.ecr-read' | 'iam.cni-policy';
  /** Actions the role must be allowed after the change (IAM simulation). */
  readonly actions: readonly string[];
  /** The CloudTrail event this change reverts, when one was attributed. */
  readonly reverts?: { readonly eventId?: string; readonly by?: string; readonly at?: string };
}

/** Pass / fail of a re-run diagnosis check. */
export interface RecheckResult {
  readonly status: 'pass' | 'warn' | 'fail' | 'error';
  readonly summary: string;
}

/** What the IAM apply path needs from AWS. */
export interface ManagedPolicyPort {
  attachedPolicies(roleName: string): Promise<string[]>;
  attach(roleName: string, policyArn: string): Promise<void>;
  detach(roleName: string, policyArn: string): Promise<void>;
  /** The finding's check, re-run against the account as it is now. */
  recheck(): Promise<RecheckResult>;
  /** IAM's own evaluation (SimulatePrincipalPolicy: boundaries and SCPs included): action → decision. */
  simulate(roleArn: string, actions: readonly string[]): Promise<Record<string, string>>;
}

export interface ManagedPolicyState {
  readonly attached: readonly string[];
  readonly check: RecheckResult;
}

/** Whether a policy ARN names one of the attachable AWS managed policies (any partition). */
export function isAttachablePolicy(arn: string): boolean {
  const m = /^arn:aws[a-z-]*:iam::aws:policy\/([A-Za-z0-9_]+)$/.exec(arn);
  return m !== null && (ATTACHABLE_POLICIES as readonly string[]).includes(m[1]);
}

export function managedPolicyPath(t: ManagedPolicyTarget, port: ManagedPolicyPort): ApplyPath<ManagedPolicyState> {
  return {
    id: 'attach-managed-policy',
    change: `attach ${t.policyArn} to role ${t.roleName}${t.reverts?.eventId ? ` (reverts CloudTrail event ${t.reverts.eventId})` : ''}`,
    async read() {
      const [attached, check] = await Promise.all([port.attachedPolicies(t.roleName), port.recheck()]);
      return { attached: [...attached].sort(), check };
    },
    causeHolds(s): Check {
      if (!isAttachablePolicy(t.policyArn))
        return { ok: false, reason: `${t.policyArn} is not an AWS managed policy pod-doctor may attach` };
      if (s.attached.includes(t.policyArn))
        return { ok: false, reason: `${t.policyArn} is already attached to ${t.roleName}` };
      if (s.check.status !== 'fail')
        return { ok: false, reason: `${t.findingId} no longer fails (${s.check.status}: ${s.check.summary})` };
      return { ok: true, reason: `${t.findingId} still fails: ${s.check.summary}` };
    },
    planned: (s) => ({
      attached: [...s.attached, t.policyArn].sort(),
      check: { status: 'pass', summary: 'expected after the change' },
    }),
    render: (s) => [
      ...s.attached.map((a) => `role ${t.roleName} policy ${a}`),
      `check ${t.findingId}: ${s.check.status}`,
    ],
    async apply() {
      await port.attach(t.roleName, t.policyArn);
      return { roleName: t.roleName, policyArn: t.policyArn };
    },
    async verify(s) {
      if (!s.attached.includes(t.policyArn))
        return { ok: false, reason: `${t.policyArn} is not attached to ${t.roleName} after AttachRolePolicy` };
      if (s.check.status !== 'pass')
        return { ok: false, reason: `${t.findingId} still ${s.check.status}: ${s.check.summary}` };
      const decisions = await port.simulate(t.roleArn, t.actions);
      const denied = Object.entries(decisions).filter(([, d]) => d !== 'allowed');
      if (denied.length)
        return {
          ok: false,
          reason: `IAM still denies ${denied.map(([a, d]) => `${a} (${d})`).join(', ')} to ${t.roleName}`,
          evidence: { simulation: decisions },
        };
      return {
        ok: true,
        reason: `${t.findingId} passes and IAM allows ${t.actions.join(', ')} to ${t.roleName}`,
        evidence: { simulation: decisions },
      };
    },
    async rollback(applied) {
      await port.detach(applied.roleName ?? t.roleName, applied.policyArn ?? t.policyArn);
    },
  };
}
