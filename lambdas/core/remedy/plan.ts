import type { ClassMode, FailureClass } from '../failure-classes.js';
import type { Finding } from '../findings.js';
import { isAdvisory } from '../policy.js';
import type { RemedyId, RemedyTier } from './apply-path.js';
import { type RemediationScope, type RemedyNode, type RemedyTarget, remedyTarget } from './targets.js';

/** What happens to the incident's account remedy. */
export type RemedyDisposition = 'auto' | 'approve' | 'dry-run' | 'blocked';

export interface PlannedRemedy {
  readonly id: RemedyId;
  readonly target: RemedyTarget;
  readonly disposition: RemedyDisposition;
  /** Why this disposition. */
  readonly reason: string;
}

export interface RemedyPlanInput {
  readonly class: FailureClass;
  readonly mode: ClassMode;
  /** The class's remedy tier from the configuration (absent: approve). */
  readonly tier?: RemedyTier;
  readonly killSwitch: boolean;
  readonly clusterOptedIn: boolean;
  readonly findings: readonly Finding[];
  readonly node?: RemedyNode;
  readonly scope: RemediationScope;
  readonly incidentId: string;
  /** Image references of the incident (reported only). */
  readonly images?: readonly string[];
}

/** The account remedy for the incident, or why there is none (observe mode, no target, out of scope). */
export function planRemedy(i: RemedyPlanInput): { remedy?: PlannedRemedy; reason: string } {
  if (i.mode === 'observe') return { reason: `class ${i.class} is in observe mode: account changes are recommended` };
  const t = remedyTarget(i);
  if (!t.target) return { reason: t.reason };
  const id: RemedyId = t.target.kind;
  const tier = i.tier ?? 'approve';
  const errors = i.findings.filter((f) => f.status === 'error' && !isAdvisory(f.id)).map((f) => f.id);
  const blocked = (reason: string) => ({
    remedy: { id, target: t.target, disposition: 'blocked' as const, reason },
    reason,
  });
  if (i.killSwitch) return blocked('kill switch is on');
  if (!i.clusterOptedIn) return blocked('cluster is not configured for pod-doctor');
  if (errors.length) return blocked(`fail closed: check(s) could not run: ${errors.join(', ')}`);
  const disposition: RemedyDisposition =
    tier === 'dry-run' ? 'dry-run' : tier === 'auto' && i.mode === 'auto' ? 'auto' : 'approve';
  const reason =
    disposition === 'dry-run'
      ? `remedies of ${i.class} run as dry run (configuration)`
      : disposition === 'auto'
        ? `remedies of ${i.class} are auto (configuration) and the class is in auto mode`
        : tier === 'auto'
          ? `class ${i.class} is in approve mode: the account change asks first`
          : 'account changes ask first (default tier approve)';
  return { remedy: { id, target: t.target, disposition, reason }, reason };
}
