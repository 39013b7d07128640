import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllYaml } from '@kubernetes/client-node';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';

/**
 * Kubernetes RBAC as the API server's authorizer decides it, for the manifest pod-doctor ships
 * (k8s/pod-doctor-rbac.yaml): ClusterRoles bound by ClusterRoleBindings apply everywhere, Roles
 * bound by RoleBindings in their namespace; `resourceNames` limits get/patch/update/delete.
 * https://kubernetes.io/docs/reference/access-authn-authz/rbac/
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
  readonly namespace?: string;
  readonly name?: string;
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

const NAMED_VERBS = ['get', 'update', 'patch', 'delete'];

function ruleAllows(rule: Rule, a: RequestAttributes): boolean {
  const has = (list: string[] | undefined, v: string) => (list ?? []).includes(v) || (list ?? []).includes('*');
  if (!has(rule.apiGroups, a.apiGroup) || !has(rule.resources, a.resource) || !has(rule.verbs, a.verb)) return false;
  if (!rule.resourceNames?.length) return true;
  return NAMED_VERBS.includes(a.verb) && a.name !== undefined && rule.resourceNames.includes(a.name);
}

export function allowed(grants: readonly Grant[], a: RequestAttributes): boolean {
  return grants.some(
    (g) => (g.namespace === undefined || g.namespace === a.namespace) && g.rules.some((r) => ruleAllows(r, a)),
  );
}

/** Request attributes of a REST call, as the API server derives them. */
export function attributesOf(method: string, url: URL): RequestAttributes {
  const parts = url.pathname.split('/').filter(Boolean);
  const apiGroup = parts[0] === 'apis' ? (parts[1] ?? '') : '';
  let rest = parts.slice(parts[0] === 'apis' ? 3 : 2);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 2) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource = '', name, sub] = rest;
  const verbs: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
  const verb =
    method === 'GET'
      ? name
        ? 'get'
        : url.searchParams.get('watch') === 'true'
          ? 'watch'
          : 'list'
      : (verbs[method] ?? method.toLowerCase());
  return {
    verb,
    apiGroup,
    resource: sub ? `${resource}/${sub}` : resource,
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
  };
}

export function forbiddenMessage(a: RequestAttributes, user: string): string {
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${a.resource} ${a.name ? `"${a.name}" ` : ''}is forbidden: User "${user}" cannot ${a.verb} resource "${a.resource}" in API group "${a.apiGroup}" ${where}`;
}
