import type { ApplyPath, Check } from './apply-path.js';
import type { RecheckResult } from './managed-policy.js';

/** Allow TCP 443 from the node security group on a VPC endpoint's security group. */
export interface SgIngressTarget {
  readonly kind: 'add-sg-rule';
  /** The endpoint's security group (where the rule goes). */
  readonly groupId: string;
  /** The node security group (the rule's source). */
  readonly sourceGroupId: string;
  /** The interface endpoints behind this group (evidence). */
  readonly endpoints: readonly string[];
  readonly description: string;
}

/** One ingress rule as EC2 describes it (security group rules API). */
export interface IngressRule {
  readonly ruleId: string;
  readonly protocol: string;
  readonly fromPort: number;
  readonly toPort: number;
  readonly source: string;
}

export interface SgIngressPort {
  ingressRules(groupId: string): Promise<IngressRule[]>;
  /** Adds the rule; returns its security group rule id. */
  authorize(groupId: string, sourceGroupId: string, port: number, description: string): Promise<string>;
  /** Removes exactly the rule `authorize` added (by id, or by its spec). */
  revoke(groupId: string, ruleId: string, sourceGroupId: string, port: number): Promise<void>;
  recheck(): Promise<RecheckResult>;
}

export interface SgIngressState {
  readonly rules: readonly IngressRule[];
  readonly check: RecheckResult;
}

const PORT = 443;

const admits = (r: IngressRule, source: string) =>
  r.source === source && (r.protocol === '-1' || (r.protocol === 'tcp' && r.fromPort <= PORT && r.toPort >= PORT));

const show = (r: IngressRule) =>
  `ingress ${r.protocol === '-1' ? 'all' : `${r.protocol} ${r.fromPort}-${r.toPort}`} from ${r.source}`;

export function sgIngressPath(t: SgIngressTarget, port: SgIngressPort): ApplyPath<SgIngressState> {
  return {
    id: 'add-sg-rule',
    change: `allow TCP ${PORT} from ${t.sourceGroupId} on ${t.groupId} (endpoint security group of ${t.endpoints.join(', ')})`,
    async read() {
      const [rules, check] = await Promise.all([port.ingressRules(t.groupId), port.recheck()]);
      return { rules, check };
    },
    causeHolds(s): Check {
      if (s.rules.some((r) => admits(r, t.sourceGroupId)))
        return { ok: false, reason: `${t.groupId} already admits TCP ${PORT} from ${t.sourceGroupId}` };
      if (s.check.status !== 'fail')
        return { ok: false, reason: `vpc.endpoint.sg-443 no longer fails (${s.check.status}: ${s.check.summary})` };
      return { ok: true, reason: `vpc.endpoint.sg-443 still fails: ${s.check.summary}` };
    },
    planned: (s) => ({
      rules: [...s.rules, { ruleId: '(new)', protocol: 'tcp', fromPort: PORT, toPort: PORT, source: t.sourceGroupId }],
      check: { status: 'pass', summary: 'expected after the change' },
    }),
    render: (s) => [
      ...s.rules.map((r) => `${t.groupId} ${show(r)}`).sort(),
      `check vpc.endpoint.sg-443: ${s.check.status}`,
    ],
    async apply() {
      const ruleId = await port.authorize(t.groupId, t.sourceGroupId, PORT, t.description);
      return { groupId: t.groupId, ruleId, sourceGroupId: t.sourceGroupId };
    },
    async verify(s) {
      if (!s.rules.some((r) => admits(r, t.sourceGroupId)))
        return {
          ok: false,
          reason: `${t.groupId} does not admit TCP ${PORT} from ${t.sourceGroupId} after the change`,
        };
      if (s.check.status !== 'pass')
        return { ok: false, reason: `vpc.endpoint.sg-443 still ${s.check.status}: ${s.check.summary}` };
      return {
        ok: true,
        reason: `${t.groupId} admits TCP ${PORT} from ${t.sourceGroupId}; vpc.endpoint.sg-443 passes`,
      };
    },
    async rollback(applied) {
      await port.revoke(t.groupId, applied.ruleId ?? '', t.sourceGroupId, PORT);
    },
  };
}
