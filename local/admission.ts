import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CelInput, run } from '@bufbuild/cel';
import { loadAllYaml } from '@kubernetes/client-node';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import type { RequestAttributes } from './rbac.js';

/**
 * ValidatingAdmissionPolicies as the API server applies them after authorization, for the DELETE
 * policies pod-doctor ships (k8s/pod-doctor-admission-policy.yaml): match constraints (operation,
 * resource, namespace by its `kubernetes.io/metadata.name` label), match conditions and validations
 * evaluated as CEL (@bufbuild/cel) over `request` and `oldObject`; a binding with `Deny` refuses.
 * https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 */
interface Policy {
  kind: 'ValidatingAdmissionPolicy';
  metadata: { name: string };
  spec: {
    matchConstraints: {
      namespaceSelector?: { matchLabels?: Record<string, string> };
      resourceRules: { apiGroups: string[]; operations: string[]; resources: string[] }[];
    };
    matchConditions?: { name: string; expression: string }[];
    validations: { expression: string; message?: string; reason?: string }[];
  };
}
interface Binding {
  kind: 'ValidatingAdmissionPolicyBinding';
  metadata: { name: string };
  spec: { policyName: string; validationActions: string[] };
}

export interface AdmissionDenial {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
}

const CODES: Record<string, number> = { Forbidden: 403, Unauthorized: 401, Invalid: 422, RequestEntityTooLarge: 413 };

/** JSON values as CEL maps and lists. */
function toCel(v: unknown): CelInput {
  if (Array.isArray(v)) return v.map(toCel);
  if (v && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
  return v as CelInput;
}

export class LocalAdmission {
  private readonly policies: { policy: Policy; binding: Binding }[];

  constructor(file = join(PROJECT_ROOT, 'k8s', 'pod-doctor-admission-policy.yaml')) {
    const docs = loadAllYaml(readFileSync(file, 'utf8')) as (Policy | Binding)[];
    const policies = docs.filter((d): d is Policy => d.kind === 'ValidatingAdmissionPolicy');
    this.policies = docs
      .filter((d): d is Binding => d.kind === 'ValidatingAdmissionPolicyBinding')
      .filter((b) => b.spec.validationActions.includes('Deny'))
      .flatMap((binding) => {
        const policy = policies.find((p) => p.metadata.name === binding.spec.policyName);
        return policy ? [{ policy, binding }] : [];
      });
    for (const { policy } of this.policies)
      if (policy.spec.matchConstraints.resourceRules.some((r) => r.operations.some((o) => o !== 'DELETE')))
        throw new Error(`${policy.metadata.name}: the local API server evaluates DELETE policies only`);
  }

  /** The denial of a request, or undefined when every matching policy admits it. */
  check(a: RequestAttributes, groups: readonly string[], oldObject: unknown): AdmissionDenial | undefined {
    if (a.verb !== 'delete') return undefined;
    const vars = { request: toCel({ userInfo: { groups: [...groups] } }), oldObject: toCel(oldObject ?? null) };
    for (const { policy, binding } of this.policies) {
      const c = policy.spec.matchConstraints;
      const ns = c.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
      const matches =
        (ns === undefined || ns === a.namespace) &&
        c.resourceRules.some((r) => r.apiGroups.includes(a.apiGroup) && r.resources.includes(a.resource));
      if (!matches || !(policy.spec.matchConditions ?? []).every((m) => run(m.expression, vars) === true)) continue;
      const failed = policy.spec.validations.find((v) => run(v.expression, vars) !== true);
      if (failed) {
        const reason = failed.reason ?? 'Invalid';
        return {
          code: CODES[reason] ?? 422,
          reason,
          message: `${a.resource} "${a.name}" is forbidden: ValidatingAdmissionPolicy '${policy.metadata.name}' with binding '${binding.metadata.name}' denied request: ${failed.message ?? failed.expression}`,
        };
      }
    }
    return undefined;
  }
}
