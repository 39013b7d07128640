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
}

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
}

export interface PullThroughCacheState {
  readonly registryId: string;
  readonly region: string;
  readonly rules: readonly CacheRule[];
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
      return { ...(await port.rules()), region };
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
    render: (s) =>
      s.rules
        .map((r) => `rule ${r.prefix} → ${r.upstreamUrl}${r.credentialArn ? ` (credentials ${r.credentialArn})` : ''}`)
        .sort(),
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
      return {
        ok: true,
        reason: `rule ${t.ecrRepositoryPrefix} → ${DOCKER_HUB_UPSTREAM} validated by ECR; pull ${images.join(', ') || `${s.registryId}.dkr.ecr.${s.region}.amazonaws.com/${t.ecrRepositoryPrefix}/<repository>:<tag>`} instead`,
        evidence: { images },
      };
    },
    async rollback() {
      await port.delete(t.ecrRepositoryPrefix);
    },
  };
}
