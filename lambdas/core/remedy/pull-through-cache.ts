import type { ApplyPath, Check } from './apply-path.js';

/**
 * Docker Hub's pull rate limit: an ECR pull-through cache rule for Docker Hub, so nodes pull through
 * ECR (one authenticated upstream pull per image, then cached). Docker Hub upstreams need
 * credentials: a Secrets Manager secret named `ecr-pullthroughcache/…` in the same account and
 * Region (https://docs.aws.amazon.com/AmazonECR/latest/userguide/pull-through-cache-creating-rule.html).
 */
export const DOCKER_HUB_UPSTREAM = 'registry-1.docker.io';

export interface PullThroughCacheTarget {
  readonly kind: 'create-pull-through-cache';
  /** ECR repository prefix of the rule (deployment configuration, never log text). */
  readonly ecrRepositoryPrefix: string;
  /** Secrets Manager secret with the Docker Hub credentials (deployment configuration). */
  readonly credentialArn?: string;
  /** Docker Hub image references seen failing (validated), to report as ECR references. */
  readonly images: readonly string[];
  /** The cluster's node roles (deployment configuration): they pull through the cache. */
  readonly nodeRoleArns?: readonly string[];
}

/**
 * What a node role needs besides the usual ECR pull permissions to pull through the cache: import
 * the upstream image, and create its repository on the first pull
 * (https://docs.aws.amazon.com/AmazonECR/latest/userguide/pull-through-cache-iam.html).
 */
export const PULL_THROUGH_ACTIONS = ['ecr:BatchImportUpstreamImage', 'ecr:CreateRepository'] as const;

/** One pull-through cache rule as ECR describes it. */
export interface CacheRule {
  readonly prefix: string;
  readonly upstreamUrl: string;
  readonly credentialArn?: string;
}

export interface PullThroughCachePort {
  /** The registry's rules and its account id (the registry id). */
  rules(): Promise<{ registryId: string; rules: CacheRule[] }>;
  create(prefix: string, upstreamUrl: string, credentialArn: string): Promise<void>;
  delete(prefix: string): Promise<void>;
  /** ECR's own check that the rule can authenticate upstream (ValidatePullThroughCacheRule). */
  validate(prefix: string): Promise<{ valid: boolean; failure?: string }>;
  /** IAM's decision (allowed / denied) per action for a role on these resources (iam:SimulatePrincipalPolicy). */
  nodeRoleDecisions(
    roleArn: string,
    actions: readonly string[],
    resources: readonly string[],
  ): Promise<Record<string, string>>;
}

export interface PullThroughCacheState {
  readonly registryId: string;
  readonly region: string;
  readonly rules: readonly CacheRule[];
  /** Per node role, the pull-through actions IAM does not allow it on the cached repositories. */
  readonly nodeRoles: readonly { readonly role: string; readonly missing: readonly string[] }[];
}

/** The ECR repositories the failing images get behind the rule (ARNs). */
function cachedRepositories(t: PullThroughCacheTarget, s: Pick<PullThroughCacheState, 'registryId' | 'region'>) {
  const partition = s.region.startsWith('cn-') ? 'aws-cn' : s.region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
  return t.images
    .map((i) => dockerHubReference(i)?.repository)
    .filter((r): r is string => r !== undefined)
    .map((r) => `arn:${partition}:ecr:${s.region}:${s.registryId}:repository/${t.ecrRepositoryPrefix}/${r}`);
}

/** The statement a node role lacking the pull-through actions needs, as one line for the summary. */
export function nodeRoleStatement(t: PullThroughCacheTarget, s: PullThroughCacheState): string | undefined {
  const lacking = s.nodeRoles.filter((r) => r.missing.length);
  if (!lacking.length) return undefined;
  const partition = cachedRepositories(t, s)[0]?.split(':')[1] ?? 'aws';
  const resource = `arn:${partition}:ecr:${s.region}:${s.registryId}:repository/${t.ecrRepositoryPrefix}/*`;
  return `allow the node role(s) ${lacking.map((r) => `${r.role} (missing ${r.missing.join(', ')})`).join('; ')} to pull through the cache: {"Effect":"Allow","Action":${JSON.stringify(PULL_THROUGH_ACTIONS)},"Resource":"${resource}"} (identity policy, or the registry permissions policy)`;
}

/** A Docker Hub reference ("httpd:latest", "docker.io/bitnami/redis:7") as repository and tag or digest. */
export function dockerHubReference(image: string): { repository: string; ref: string } | undefined {
  const m =
    /^(?:(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\/)?([a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)?)((?::[\w][\w.-]{0,127})|(?:@sha256:[a-f0-9]{64}))?$/.exec(
      image,
    );
  if (!m) return undefined;
  const repository = m[1].includes('/') ? m[1] : `library/${m[1]}`;
  return { repository, ref: m[2] ?? ':latest' };
}

/** The ECR reference a Docker Hub image has behind the rule. */
export function cachedReference(image: string, s: { registryId: string; region: string }, prefix: string) {
  const r = dockerHubReference(image);
  const suffix = s.region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return r ? `${s.registryId}.dkr.ecr.${s.region}.${suffix}/${prefix}/${r.repository}${r.ref}` : undefined;
}

const dockerHubRule = (s: PullThroughCacheState) => s.rules.find((r) => r.upstreamUrl === DOCKER_HUB_UPSTREAM);

export function pullThroughCachePath(
  t: PullThroughCacheTarget,
  port: PullThroughCachePort,
  region: string,
): ApplyPath<PullThroughCacheState> {
  const references = (s: PullThroughCacheState, prefix: string) =>
    t.images.map((i) => cachedReference(i, s, prefix)).filter((x): x is string => x !== undefined);
  return {
    id: 'create-pull-through-cache',
    change: `create an ECR pull-through cache rule ${t.ecrRepositoryPrefix} → ${DOCKER_HUB_UPSTREAM}${t.credentialArn ? ` (credentials ${t.credentialArn})` : ''}`,
    async read() {
      const rules = { ...(await port.rules()), region };
      const repositories = cachedRepositories(t, rules);
      const nodeRoles = [];
      for (const role of repositories.length ? (t.nodeRoleArns ?? []) : []) {
        const d = await port.nodeRoleDecisions(role, PULL_THROUGH_ACTIONS, repositories);
        nodeRoles.push({ role, missing: PULL_THROUGH_ACTIONS.filter((a) => d[a] !== 'allowed') });
      }
      return { ...rules, nodeRoles };
    },
    causeHolds(s): Check {
      const existing = dockerHubRule(s);
      if (existing)
        return {
          ok: false,
          reason: `a Docker Hub pull-through cache rule exists (${existing.prefix}): pull ${references(s, existing.prefix).join(', ') || 'images'} through it`,
        };
      if (s.rules.some((r) => r.prefix === t.ecrRepositoryPrefix))
        return { ok: false, cannot: true, reason: `the prefix ${t.ecrRepositoryPrefix} is taken by another rule` };
      if (!t.credentialArn)
        return {
          ok: false,
          cannot: true,
          reason:
            'a Docker Hub upstream needs credentials: configure remediation.pullThroughCache.credentialArn (a Secrets Manager secret named ecr-pullthroughcache/…)',
        };
      return { ok: true, reason: `no pull-through cache rule for ${DOCKER_HUB_UPSTREAM} in registry ${s.registryId}` };
    },
    planned: (s) => ({
      ...s,
      rules: [
        ...s.rules,
        { prefix: t.ecrRepositoryPrefix, upstreamUrl: DOCKER_HUB_UPSTREAM, credentialArn: t.credentialArn },
      ],
    }),
    render: (s) => [
      ...s.rules
        .map((r) => `rule ${r.prefix} → ${r.upstreamUrl}${r.credentialArn ? ` (credentials ${r.credentialArn})` : ''}`)
        .sort(),
      ...s.nodeRoles.map(
        (r) =>
          `node role ${r.role}: ${r.missing.length ? `lacks ${r.missing.join(', ')}` : `allowed ${PULL_THROUGH_ACTIONS.join(', ')}`} on ${t.ecrRepositoryPrefix}/…`,
      ),
    ],
    async apply() {
      await port.create(t.ecrRepositoryPrefix, DOCKER_HUB_UPSTREAM, t.credentialArn ?? '');
      return { ecrRepositoryPrefix: t.ecrRepositoryPrefix };
    },
    async verify(s) {
      const rule = dockerHubRule(s);
      if (rule?.prefix !== t.ecrRepositoryPrefix)
        return { ok: false, reason: `no rule ${t.ecrRepositoryPrefix} → ${DOCKER_HUB_UPSTREAM} after the change` };
      const v = await port.validate(t.ecrRepositoryPrefix);
      if (!v.valid)
        return { ok: false, reason: `ECR cannot authenticate to Docker Hub with the rule: ${v.failure ?? 'invalid'}` };
      const images = references(s, t.ecrRepositoryPrefix);
      const permission = nodeRoleStatement(t, s);
      return {
        ok: true,
        reason: `rule ${t.ecrRepositoryPrefix} → ${DOCKER_HUB_UPSTREAM} validated by ECR; pull ${images.join(', ') || `${s.registryId}.dkr.ecr.${s.region}.amazonaws.com/${t.ecrRepositoryPrefix}/<repository>:<tag>`} instead`,
        evidence: { images, ...(permission ? { nodeRolePermission: permission } : {}) },
      };
    },
    async rollback() {
      await port.delete(t.ecrRepositoryPrefix);
    },
  };
}
