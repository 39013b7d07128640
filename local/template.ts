import { createHash } from 'node:crypto';
import { configVersion } from '../lambdas/aws/runtime/config-store.js';
import { createApp } from '../lib/app.js';
import { CONFIG_CONTEXT_KEY } from '../lib/config.js';
import { NODE_ROLE } from './account-snapshot.js';
import { checkFilterPattern } from './limits.js';

/** The fixed account and region the local runtime deploys into. */
export const ACCOUNT = '111122223333';
export const REGION = 'eu-west-1';
export const PARTITION = 'aws';

/** Where a template is deployed in the local world: its account, Region and stack name. */
export interface LocalEnv {
  readonly account: string;
  readonly region: string;
  readonly stackName: string;
}

/** The single-account deployment every local run used before fleets: the recorded account. */
export const LOCAL_ENV: LocalEnv = { account: ACCOUNT, region: REGION, stackName: 'PodDoctor' };

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

/** A synthesized template whose intrinsics are all resolved to concrete names and ARNs. */
export interface ResolvedTemplate {
  readonly Resources: Record<string, CfnResource>;
  /** The resources as synthesized (names and ARNs derive from these). */
  readonly raw: Record<string, CfnResource>;
  /** Where the template is deployed (default {@link LOCAL_ENV}). */
  readonly env?: LocalEnv;
}

/** Error for an intrinsic the resolver does not know: a silent placeholder would hide a wrong ARN. */
export class UnresolvableIntrinsicError extends Error {
  override readonly name = 'UnresolvableIntrinsicError';
}

const shortHash = (s: string, n = 6) => createHash('sha256').update(s).digest('hex').slice(0, n);

/** The physical name CloudFormation would generate for a resource without an explicit name. */
function physicalName(id: string, r: CfnResource, env: LocalEnv = LOCAL_ENV): string {
  const p = r.Properties ?? {};
  const named = p.TableName ?? p.BucketName ?? p.TopicName ?? p.FunctionName ?? p.RoleName ?? p.Name;
  // A name built from pseudo parameters (a StackSet role's `…-${AWS::Region}`) resolves in its env.
  const explicit = named !== null && typeof named === 'object' ? resolveValue(named, {}, env) : named;
  if (typeof explicit === 'string') return explicit;
  // Bucket names are global: another account's or Region's copy of a stack gets another name.
  const local = env.account === ACCOUNT && env.region === REGION && env.stackName === LOCAL_ENV.stackName;
  const unique = local ? id : `${env.account}/${env.region}/${env.stackName}/${id}`;
  if (r.Type === 'AWS::S3::Bucket') return `poddoctor-${id.toLowerCase().slice(0, 44)}-${shortHash(unique)}`;
  if (r.Type === 'AWS::SSM::Document') {
    // The step name stands for the document: the local nodes answer per document.
    const content = p.Content as { mainSteps?: { name: string }[] } | undefined;
    return `pod-doctor-${content?.mainSteps?.[0]?.name ?? id}`;
  }
  // Like CloudFormation: a truncated logical id and a unique suffix, within 64 characters.
  return `PodDoctor-${id.slice(0, 40)}-${shortHash(unique, 12).toUpperCase()}`;
}

const arn = (service: string, resource: string, env: LocalEnv) =>
  `arn:${PARTITION}:${service}:${env.region}:${env.account}:${resource}`;

/** What `Ref` returns for a resource, per the CloudFormation resource reference. */
function ref(id: string, r: CfnResource, env: LocalEnv = LOCAL_ENV): string {
  const name = physicalName(id, r, env);
  switch (r.Type) {
    case 'AWS::SNS::Topic':
      return arn('sns', name, env);
    case 'AWS::StepFunctions::StateMachine':
      return arn('states', `stateMachine:${name}`, env);
    case 'AWS::SecretsManager::Secret':
      return arn('secretsmanager', `secret:${name}-${shortHash(id)}`, env);
    case 'AWS::KMS::Key':
      return `${shortHash(id, 8)}-1234-4abc-8def-${shortHash(`${id}k`, 12)}`;
    case 'AWS::SQS::Queue':
      return `https://sqs.${env.region}.amazonaws.com/${env.account}/${name}`;
    default:
      return name;
  }
}

/** What `Fn::GetAtt` returns. */
function getAtt(id: string, r: CfnResource, attr: string, env: LocalEnv = LOCAL_ENV): string {
  const name = physicalName(id, r, env);
  const byType: Record<string, () => string> = {
    // A role's ARN holds its path (`/pod-doctor/<fleet>/` for a fleet hub's roles).
    'AWS::IAM::Role': () => `arn:${PARTITION}:iam::${env.account}:role${String(r.Properties?.Path ?? '/')}${name}`,
    'AWS::Lambda::Function': () => arn('lambda', `function:${name}`, env),
    'AWS::DynamoDB::GlobalTable': () => arn('dynamodb', `table/${name}`, env),
    'AWS::DynamoDB::Table': () => arn('dynamodb', `table/${name}`, env),
    'AWS::S3::Bucket': () => `arn:${PARTITION}:s3:::${name}`,
    'AWS::KMS::Key': () => arn('kms', `key/${ref(id, r, env)}`, env),
    'AWS::Logs::LogGroup': () => arn('logs', `log-group:${name}:*`, env),
    'AWS::SQS::Queue': () => arn('sqs', name, env),
    'AWS::Events::Rule': () => arn('events', `rule/${name}`, env),
    'AWS::Events::EventBus': () => arn('events', `event-bus/${name}`, env),
    // The operations dashboard's alarm status widget names its alarms by ARN.
    'AWS::CloudWatch::Alarm': () => arn('cloudwatch', `alarm:${name}`, env),
    'AWS::StepFunctions::StateMachine': () => ref(id, r, env),
    'AWS::SNS::Topic': () => ref(id, r, env),
  };
  if (attr === 'Arn' && byType[r.Type]) return byType[r.Type]();
  if (r.Type === 'AWS::Lambda::Url' && attr === 'FunctionUrl')
    return `https://${shortHash(id, 32)}.lambda-url.${env.region}.on.aws/`;
  if (r.Type === 'AWS::Events::EventBus' && attr === 'Name') return name;
  if (r.Type === 'AWS::StepFunctions::StateMachine' && attr === 'Name') return name;
  if (r.Type === 'AWS::SQS::Queue' && attr === 'QueueName') return name;
  // A security group's id (sg- and 17 hex digits, as EC2 generates them), stable per logical id.
  if (r.Type === 'AWS::EC2::SecurityGroup' && attr === 'GroupId') return `sg-${shortHash(name, 17)}`;
  throw new UnresolvableIntrinsicError(`Fn::GetAtt ${id}.${attr} (${r.Type})`);
}

const pseudo = (env: LocalEnv): Record<string, string> => ({
  'AWS::Partition': PARTITION,
  'AWS::Region': env.region,
  'AWS::AccountId': env.account,
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': env.stackName,
});

/** Resolves every intrinsic in `v` against `resources` (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select, Fn::Split). */
export function resolveValue(
  v: unknown,
  resources: Record<string, CfnResource>,
  env: LocalEnv = LOCAL_ENV,
  parameters: Record<string, string> = {},
): unknown {
  const again = (x: unknown) => resolveValue(x, resources, env, parameters);
  if (Array.isArray(v)) return v.map(again);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  const PSEUDO = { ...pseudo(env), ...parameters };
  const str = (x: unknown) => String(again(x));
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'))) {
    const [k] = keys;
    const a = o[k];
    if (k === 'Ref') {
      const name = String(a);
      if (PSEUDO[name]) return PSEUDO[name];
      const r = resources[name];
      if (!r) throw new UnresolvableIntrinsicError(`Ref ${name}`);
      return ref(name, r, env);
    }
    if (k === 'Fn::GetAtt') {
      const [id, attr] = (typeof a === 'string' ? a.split('.') : a) as [string, string];
      const r = resources[id];
      if (!r) throw new UnresolvableIntrinsicError(`Fn::GetAtt ${id}`);
      // The configuration's version is what its writer makes of the document it stores.
      if (r.Type === 'Custom::PodDoctorConfig' && attr === 'Version') return configVersion(str(r.Properties?.Document));
      return getAtt(id, r, attr, env);
    }
    if (k === 'Fn::Join') {
      const [sep, parts] = a as [string, unknown[]];
      return (again(parts) as unknown[]).map(String).join(sep);
    }
    if (k === 'Fn::Select') {
      const [i, list] = a as [number, unknown];
      return (again(list) as unknown[])[Number(i)];
    }
    if (k === 'Fn::Split') {
      const [sep, s] = a as [string, unknown];
      return str(s).split(sep);
    }
    if (k === 'Fn::Sub') {
      const [tpl, vars] = (typeof a === 'string' ? [a, {}] : a) as [string, Record<string, unknown>];
      return tpl.replace(/\$\{([^!}][^}]*)\}/g, (_m, name: string) => {
        if (name in vars) return str(vars[name]);
        if (PSEUDO[name]) return PSEUDO[name];
        const [id, attr] = name.split('.');
        const r = resources[id];
        if (!r) throw new UnresolvableIntrinsicError(`Fn::Sub \${${name}}`);
        return attr ? getAtt(id, r, attr, env) : ref(id, r, env);
      });
    }
    throw new UnresolvableIntrinsicError(`${k} ${JSON.stringify(a).slice(0, 200)}`);
  }
  return Object.fromEntries(Object.entries(o).map(([key, x]) => [key, again(x)]));
}

/**
 * Every resource of `template` with its intrinsics resolved (the raw resources stay the reference),
 * as deployed to `env`; `parameters` gives the values of the template's parameters (a StackSet's).
 */
export function resolveTemplate(
  template: { Resources: Record<string, CfnResource> },
  env: LocalEnv = LOCAL_ENV,
  parameters: Record<string, string> = {},
): ResolvedTemplate {
  const raw = template.Resources;
  return {
    raw,
    env,
    Resources: Object.fromEntries(
      Object.entries(raw).map(([id, r]) => [
        id,
        { ...r, Properties: resolveValue(r.Properties ?? {}, raw, env, parameters) as never },
      ]),
    ),
  };
}

/** Resolved ARN / name of one resource, as Ref or Fn::GetAtt would give it. */
export function refOf(t: ResolvedTemplate, id: string): string {
  return ref(id, t.raw[id], t.env);
}
export function arnOf(t: ResolvedTemplate, id: string): string {
  return getAtt(id, t.raw[id], 'Arn', t.env);
}

/** Logical ids of the resources of one type. */
export function idsOfType(t: { Resources: Record<string, CfnResource> }, type: string): string[] {
  return Object.entries(t.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);
}

const cache = new Map<string, ResolvedTemplate>();

/** The configuration the local runtime deploys by default: the recorded cluster and its node role. */
export const LOCAL_CONFIG = {
  clusters: [{ name: 'prod-eu', region: REGION, nodeRoleArns: [`arn:${PARTITION}:iam::${ACCOUNT}:role/${NODE_ROLE}`] }],
};

/** Synthesizes the project app (cdk-nag included, no bundling) for `config` and resolves it; cached. */
export function synthesizedTemplate(config: unknown = LOCAL_CONFIG): ResolvedTemplate {
  const key = JSON.stringify(config);
  const hit = cache.get(key);
  if (hit) return hit;
  const { app, stack } = createApp({ context: { [CONFIG_CONTEXT_KEY]: config, 'aws:cdk:bundling-stacks': [] } });
  const raw = app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, CfnResource> };
  const resolved = resolveTemplate(raw);
  // What the deploy would refuse, the local runtime refuses too.
  for (const id of idsOfType(resolved, 'AWS::Logs::SubscriptionFilter'))
    checkFilterPattern(String(resolved.Resources[id].Properties?.FilterPattern ?? ''));
  cache.set(key, resolved);
  return resolved;
}
