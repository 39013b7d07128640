/** An ECR image reference, split. */
export interface EcrImage {
  readonly registryId: string;
  readonly region: string;
  readonly repository: string;
  readonly tag?: string;
  readonly digest?: string;
  readonly repositoryArn: string;
}

const ECR =
  /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/([^:@]+)(?::([^@]+))?(?:@(sha256:[a-f0-9]{64}))?$/;

/** Parses an ECR image reference; undefined for other registries. */
export function parseEcrImage(image: string): EcrImage | undefined {
  const m = ECR.exec(image);
  if (!m) return undefined;
  const [, registryId, region, repository, tag, digest] = m;
  const partition = image.includes('.amazonaws.com.cn/') ? 'aws-cn' : 'aws';
  return {
    registryId,
    region,
    repository,
    tag: tag ?? (digest ? undefined : 'latest'),
    digest,
    repositoryArn: `arn:${partition}:ecr:${region}:${registryId}:repository/${repository}`,
  };
}

/** Levenshtein distance (small strings: tags and repository names). */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The candidates closest to `wanted` (ties by name), at most `limit`. */
export function closest(wanted: string, candidates: readonly string[], limit = 3): string[] {
  return [...new Set(candidates)]
    .map((c) => ({ c, d: editDistance(wanted, c) }))
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .slice(0, limit)
    .map((x) => x.c);
}
