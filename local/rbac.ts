import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllYaml } from '@kubernetes/client-node';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';

/**
 * Kubernetes RBAC as the API server's authorizer decides it, for the manifest pod-doctor ships
 * (k8s/pod-doctor-rbac.yaml): ClusterRoles bound by ClusterRoleBindings apply everywhere, Roles
 * bound by RoleBindings in their namespace. A rule's resources match the requested resource, its
 * `resource/subresource` form, `*`, or a star before `/subresource`; `resourceNames` match the request's name
 * whatever the verb (so a create or deletecollection, which carry none, never matches a rule with names).
 * https://kubernetes.io/docs/reference/access-authn-authz/rbac/ and ResourceMatches /
 * ResourceNameMatches in https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/rbac/v1/evaluation_helpers.go
 */
export interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs?: string[];
}
export interface Grant {
  readonly namespace?: string;
  readonly rules: readonly Rule[];
}

export interface RequestAttributes {
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  /** `eviction` of `pods/{name}/eviction`, `status` of `namespaces/{name}/status`. */
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** `pods/eviction` for a subresource request, `pods` otherwise (what RBAC rules and messages name). */
export function combinedResource(a: RequestAttributes): string {
  return a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
}

type Doc = {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { name: string };
  subjects?: { kind: string; name: string }[];
};

export function groupGrants(group: string, file = join(PROJECT_ROOT, 'k8s', 'pod-doctor-rbac.yaml')): Grant[] {
  const docs = loadAllYaml(readFileSync(file, 'utf8')) as Doc[];
  const roles = new Map(
    docs
      .filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role')
      .map((d) => [`${d.kind}/${d.metadata.namespace ?? ''}/${d.metadata.name}`, d]),
  );
  const grants: Grant[] = [];
  for (const b of docs.filter((d) => d.kind === 'ClusterRoleBinding' || d.kind === 'RoleBinding')) {
    if (!b.subjects?.some((s) => s.kind === 'Group' && s.name === group)) continue;
    const clusterWide = b.kind === 'ClusterRoleBinding';
    const role =
      roles.get(`ClusterRole//${b.roleRef?.name}`) ??
      roles.get(`Role/${b.metadata.namespace ?? ''}/${b.roleRef?.name}`);
    if (role) grants.push({ ...(clusterWide ? {} : { namespace: b.metadata.namespace }), rules: role.rules ?? [] });
  }
  return grants;
}

function resourceMatches(rule: Rule, a: RequestAttributes): boolean {
  const combined = combinedResource(a);
  return (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (a.subresource !== undefined && r === `*/${a.subresource}`),
  );
}

function ruleAllows(rule: Rule, a: RequestAttributes): boolean {
  const has = (list: string[] | undefined, v: string) => (list ?? []).includes(v) || (list ?? []).includes('*');
  if (!has(rule.apiGroups, a.apiGroup) || !resourceMatches(rule, a) || !has(rule.verbs, a.verb)) return false;
  return !rule.resourceNames?.length || (a.name !== undefined && rule.resourceNames.includes(a.name));
}

export function allowed(grants: readonly Grant[], a: RequestAttributes): boolean {
  return grants.some(
    (g) => (g.namespace === undefined || g.namespace === a.namespace) && g.rules.some((r) => ruleAllows(r, a)),
  );
}

const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/**
 * Request attributes of a REST call, as the API server derives them (RequestInfoFactory.NewRequestInfo,
 * https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go):
 * `/watch/` and `/proxy/` prefixes are verbs; `namespaces/{ns}/{resource}/{name}/{subresource}`; a GET
 * without a name is a list, or a watch when `watch` is anything but `0`/`false`; a DELETE without a name
 * is a deletecollection.
 */
export function attributesOf(method: string, url: URL): RequestAttributes {
  const parts = url.pathname.split('/').filter(Boolean);
  const apiGroup = parts[0] === 'apis' ? (parts[1] ?? '') : '';
  let rest = parts.slice(parts[0] === 'apis' ? 3 : 2);
  let verb = METHOD_VERBS[method] ?? '';
  if (SPECIAL_VERBS.has(rest[0] ?? '') && rest.length > 1) {
    verb = rest[0];
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  const [resource = '', name, sub] = rest;
  const subresource = sub !== undefined && verb !== 'proxy' ? sub : undefined;
  if (!name && verb === 'get') {
    const watch = url.searchParams.get('watch');
    verb = watch !== null && !['false', '0'].includes(watch.toLowerCase()) ? 'watch' : 'list';
  }
  if (!name && verb === 'delete') verb = 'deletecollection';
  return {
    verb,
    apiGroup,
    resource,
    ...(subresource ? { subresource } : {}),
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
  };
}

export function forbiddenMessage(a: RequestAttributes, user: string): string {
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const resource = combinedResource(a);
  return `${resource} ${a.name ? `"${a.name}" ` : ''}is forbidden: User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${where}`;
}
