import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every AWS call a synthesized cloud assembly's Lambda bundles make, checked against the allow
 * statements of the function's role: each bundle's own sources (from its source map, node_modules
 * left out), the SDK clients they import and the commands they construct → IAM actions. A call site
 * is covered when some function that bundles the file may make the call (one module can serve
 * several functions). Resources are not compared: this finds a missing action, not a too-wide one.
 */

type Resource = { Type: string; Properties: Record<string, unknown> };

/** npm client package → IAM service prefix. */
const SERVICE: Record<string, string> = {
  'client-dynamodb': 'dynamodb',
  'lib-dynamodb': 'dynamodb',
  'client-sfn': 'states',
  'client-sns': 'sns',
  'client-s3': 's3',
  'client-ssm': 'ssm',
  'client-ecr': 'ecr',
  'client-iam': 'iam',
  'client-eks': 'eks',
  'client-cloudtrail': 'cloudtrail',
  'client-secrets-manager': 'secretsmanager',
  'client-sts': 'sts',
  'client-cloudwatch-logs': 'logs',
  'client-lambda': 'lambda',
};
/** DocumentClient commands → DynamoDB actions; operations whose action differs from their name. */
const DOCUMENT: Record<string, string> = { Get: 'GetItem', Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem' };
const SPECIAL: Record<string, string> = {
  's3:ListObjectsV2': 's3:ListBucket',
  's3:HeadObject': 's3:GetObject',
  'dynamodb:TransactWriteItems': 'dynamodb:PutItem',
};

function callsOf(mapFile: string): { action: string; file: string }[] {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[]; sourcesContent?: string[] };
  return map.sources.flatMap((src, i) => {
    const content = map.sourcesContent?.[i];
    if (!content || src.includes('node_modules')) return [];
    const imports = new Map<string, string>();
    for (const [, names, pkg] of content.matchAll(
      /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"]@aws-sdk\/([a-z0-9-]+)['"]/g,
    ))
      for (const n of names.split(',')) imports.set(n.trim().split(' as ').pop()?.trim() ?? '', pkg);
    return [...new Set([...content.matchAll(/new\s+([A-Z][A-Za-z0-9]+)Command\s*\(/g)].map((m) => m[1]))].flatMap(
      (cmd) => {
        const pkg = imports.get(`${cmd}Command`);
        const service = pkg ? SERVICE[pkg] : undefined;
        if (!service) return [];
        const action = `${service}:${pkg === 'lib-dynamodb' ? (DOCUMENT[cmd] ?? cmd) : cmd}`;
        return [{ action: SPECIAL[action] ?? action, file: src.split('/').pop() ?? src }];
      },
    );
  });
}

function allowedActions(resources: Record<string, Resource>, roleId: string): string[] {
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((r) => (r.Properties.PolicyDocument as { Statement: { Effect: string; Action: unknown }[] }).Statement)
    .filter((s) => s.Effect === 'Allow')
    .flatMap((s) => [s.Action].flat() as string[]);
}

const matches = (action: string, pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  ).test(action);

/** The calls of the assembly in `outDir` that no function bundling them may make, and how many were checked. */
export function iamCoverage(
  outDir: string,
  templateFile = readdirSync(outDir).find((f) => f.endsWith('.template.json')),
): { checked: number; gaps: string[] } {
  const resources = (
    JSON.parse(readFileSync(join(outDir, String(templateFile)), 'utf8')) as { Resources: Record<string, Resource> }
  ).Resources;
  const sites = new Map<string, boolean>();
  for (const fn of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
    const hash = String((fn.Properties.Code as { S3Key?: unknown }).S3Key ?? '').replace('.zip', '');
    const dir = join(outDir, `asset.${hash}`);
    const map = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('.map')) : undefined;
    if (!map) continue;
    const allow = allowedActions(resources, (fn.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]);
    for (const { action, file } of callsOf(join(dir, map))) {
      const key = `${file} calls ${action}`;
      sites.set(key, (sites.get(key) ?? false) || allow.some((p) => matches(action, p)));
    }
  }
  return { checked: sites.size, gaps: [...sites].filter(([, ok]) => !ok).map(([k]) => k) };
}
