import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CelInput, run } from '@bufbuild/cel';
import { loadAllYaml } from '@kubernetes/client-node';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import { combinedResource, type RequestAttributes } from './rbac.js';

/**
 * ValidatingAdmissionPolicies as the API server applies them after authorization, for the policies
 * pod-doctor ships (k8s/pod-doctor-admission-policy.yaml): match constraints (operation, resource or
 * subresource, namespace by its `kubernetes.io/metadata.name` label), match conditions and validations
 * evaluated as CEL (@bufbuild/cel) over `request`, `object` and `oldObject`; a binding with `Deny`
 * refuses. Resource rules read as the API documents them: `pods` is pods only, `pods/eviction` its
 * eviction subresource, `pods/*` every pod subresource, `*` every resource but no subresource, a star
 * before `/eviction` every eviction subresource. An eviction is a CREATE of `pods/eviction` whose object
 * is the Eviction (no old object): the pod it deletes passes no DELETE admission.
 * https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/ ·
 * https://kubernetes.io/docs/reference/kubernetes-api/extend-resources/validating-admission-policy-v1/ (resourceRules)
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

/** The admission operation of an authorised verb. */
const OPERATIONS: Record<string, string> = {
  create: 'CREATE',
  update: 'UPDATE',
  patch: 'UPDATE',
  delete: 'DELETE',
  deletecollection: 'DELETE',
  proxy: 'CONNECT',
};

/** Whether a policy's resource rule names the request's resource (or subresource). */
function resourceRuleMatches(rule: string, a: RequestAttributes): boolean {
  if (rule === '*/*') return true;
  if (rule === '*') return a.subresource === undefined;
  if (rule === combinedResource(a)) return true;
  const [res, sub] = rule.split('/');
  if (a.subresource === undefined || sub === undefined) return false;
  return (res === a.resource && sub === '*') || (res === '*' && sub === a.subresource);
}

/** What a request's admission sees besides its attributes. */
export interface AdmissionObjects {
  /** The object created or the object after the update (an Eviction for `pods/eviction`). */
  readonly object?: unknown;
  /** The object before an update or deletion. */
  readonly oldObject?: unknown;
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
  }

  /** The denial of a request, or undefined when every matching policy admits it. */
  check(a: RequestAttributes, groups: readonly string[], objects: AdmissionObjects = {}): AdmissionDenial | undefined {
    const operation = OPERATIONS[a.verb];
    if (!operation) return undefined;
    const vars = {
      request: toCel({
        userInfo: { groups: [...groups] },
        operation,
        name: a.name ?? '',
        namespace: a.namespace ?? '',
        subResource: a.subresource ?? '',
      }),
      object: toCel(objects.object ?? null),
      oldObject: toCel(objects.oldObject ?? null),
    };
    for (const { policy, binding } of this.policies) {
      if (!this.matches(policy, a, operation, vars)) continue;
      const failed = policy.spec.validations.find((v) => run(v.expression, vars) !== true);
      if (failed) {
        const reason = failed.reason ?? 'Invalid';
        return {
          code: CODES[reason] ?? 422,
          reason,
          message: `${combinedResource(a)} "${a.name}" is forbidden: ValidatingAdmissionPolicy '${policy.metadata.name}' with binding '${binding.metadata.name}' denied request: ${failed.message ?? failed.expression}`,
        };
      }
    }
    return undefined;
  }

  private matches(policy: Policy, a: RequestAttributes, operation: string, vars: Record<string, CelInput>): boolean {
    const c = policy.spec.matchConstraints;
    const ns = c.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
    const matches =
      (ns === undefined || ns === a.namespace) &&
      c.resourceRules.some(
        (r) =>
          (r.operations.includes(operation) || r.operations.includes('*')) &&
          (r.apiGroups.includes(a.apiGroup) || r.apiGroups.includes('*')) &&
          r.resources.some((x) => resourceRuleMatches(x, a)),
      );
    return matches && (policy.spec.matchConditions ?? []).every((m) => run(m.expression, vars) === true);
  }
}
