import { describe, expect, it } from 'vitest';
import { runApplyPath } from '../../lambdas/core/remedy/apply-path.js';
import {
  type CacheRule,
  cachedReference,
  dockerHubReference,
  type PullThroughCachePort,
  type PullThroughCacheTarget,
  pullThroughCachePath,
} from '../../lambdas/core/remedy/pull-through-cache.js';
import { remedyTarget } from '../../lambdas/core/remedy/targets.js';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ecr-pullthroughcache/docker-hub-AbCdEf';
const TARGET: PullThroughCacheTarget = {
  kind: 'create-pull-through-cache',
  ecrRepositoryPrefix: 'docker-hub',
  credentialArn: SECRET,
  images: ['httpd:latest', 'docker.io/bitnami/redis:7.2'],
};

function memoryRegistry(o: { loginValid?: boolean; rules?: CacheRule[] } = {}) {
  const rules: CacheRule[] = [...(o.rules ?? [])];
  const calls: string[] = [];
  const port: PullThroughCachePort = {
    rules: async () => ({ registryId: '111122223333', rules: [...rules] }),
    async create(prefix, upstreamUrl, credentialArn) {
      calls.push(`create ${prefix}`);
      rules.push({ prefix, upstreamUrl, credentialArn });
    },
    async delete(prefix) {
      calls.push(`delete ${prefix}`);
      rules.splice(
        rules.findIndex((r) => r.prefix === prefix),
        1,
      );
    },
    validate: async () =>
      o.loginValid === false ? { valid: false, failure: 'Unable to log in to the upstream registry' } : { valid: true },
    nodeRoleDecisions: async () => ({}),
  };
  return { port, rules, calls };
}

const run = (t: PullThroughCacheTarget, port: PullThroughCachePort, dryRun = false) =>
  runApplyPath(pullThroughCachePath(t, port, 'eu-west-1'), { dryRun, now: () => 0 });

describe('Docker Hub references', () => {
  it.each([
    ['httpd:latest', 'library/httpd', ':latest'],
    ['httpd', 'library/httpd', ':latest'],
    ['docker.io/bitnami/redis:7.2', 'bitnami/redis', ':7.2'],
    ['registry-1.docker.io/library/nginx:1.27', 'library/nginx', ':1.27'],
  ])('%s → %s%s', (image, repository, ref) => {
    expect(dockerHubReference(image)).toEqual({ repository, ref });
  });

  it.each(['quay.io/prometheus/node-exporter:v1', 'public.ecr.aws/nginx/nginx:1', 'a b', 'x;rm -rf /', 'UPPER:1'])(
    'not a Docker Hub reference: %s',
    (image) => {
      expect(dockerHubReference(image)).toBeUndefined();
    },
  );

  it('the cached reference is the registry, the prefix, the repository and the same tag', () => {
    expect(cachedReference('httpd:latest', { registryId: '111122223333', region: 'eu-west-1' }, 'docker-hub')).toBe(
      '111122223333.dkr.ecr.eu-west-1.amazonaws.com/docker-hub/library/httpd:latest',
    );
  });
});

describe('create-pull-through-cache apply path', () => {
  it('verified: creates the rule, ECR validates it, the exact image references are reported', async () => {
    const m = memoryRegistry();
    const r = await run(TARGET, m.port);
    expect(r.status).toBe('verified');
    expect(r.diff).toEqual([`+ rule docker-hub → registry-1.docker.io (credentials ${SECRET})`]);
    expect(r.verification?.evidence).toEqual({
      images: [
        '111122223333.dkr.ecr.eu-west-1.amazonaws.com/docker-hub/library/httpd:latest',
        '111122223333.dkr.ecr.eu-west-1.amazonaws.com/docker-hub/bitnami/redis:7.2',
      ],
    });
  });

  it('dry run: the planned rule, nothing created', async () => {
    const m = memoryRegistry();
    expect((await run(TARGET, m.port, true)).status).toBe('dry-run');
    expect(m.calls).toEqual([]);
  });

  it('ECR cannot log in upstream with the secret: the rule is deleted again (rolled back)', async () => {
    const m = memoryRegistry({ loginValid: false });
    const r = await run(TARGET, m.port);
    expect(r.status).toBe('rolled-back');
    expect(r.reason).toMatch(/ECR cannot authenticate to Docker Hub with the rule: Unable to log in/);
    expect(m.calls).toEqual(['create docker-hub', 'delete docker-hub']);
    expect(m.rules).toEqual([]);
  });

  it('a Docker Hub rule exists already: not needed, and it says which references to pull', async () => {
    const m = memoryRegistry({ rules: [{ prefix: 'hub', upstreamUrl: 'registry-1.docker.io' }] });
    const r = await run(TARGET, m.port);
    expect(r.status).toBe('not-needed');
    expect(r.reason).toContain('111122223333.dkr.ecr.eu-west-1.amazonaws.com/hub/library/httpd:latest');
  });

  it('no credentials configured: not applicable (Docker Hub upstreams need a secret), nothing created', async () => {
    const m = memoryRegistry();
    const r = await run({ ...TARGET, credentialArn: undefined }, m.port);
    expect(r.status).toBe('not-applicable');
    expect(r.reason).toMatch(/ecr-pullthroughcache/);
    expect(m.calls).toEqual([]);
  });
});

describe('rate-limited target', () => {
  const base = { class: 'rate-limited' as const, findings: [], incidentId: 'i-1' };
  const scope = { roles: [], endpointSecurityGroups: [], subnets: [] };

  it('none without a configured rule', () => {
    expect(remedyTarget({ ...base, scope })).toEqual({
      reason: "the cluster's remediation.pullThroughCache is not configured",
    });
  });

  it('the configured prefix and secret; only valid Docker Hub references are carried (to be reported)', () => {
    const t = remedyTarget({
      ...base,
      scope: { ...scope, pullThroughCache: { ecrRepositoryPrefix: 'docker-hub', credentialArn: SECRET } },
      images: ['httpd:latest', 'quay.io/x/y:1', '$(curl evil)'],
      nodeRoleArns: ['arn:aws:iam::111122223333:role/node-role'],
    });
    // The cluster's configured node roles travel with it: the re-check asks IAM whether they may pull through.
    expect(t.target).toEqual({
      ...TARGET,
      images: ['httpd:latest'],
      nodeRoleArns: ['arn:aws:iam::111122223333:role/node-role'],
    });
  });
});
