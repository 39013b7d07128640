import { anonymousPrincipal, runSimulation } from '@cloud-copilot/iam-simulate';
import { arnOf, type CfnResource, LOCAL_ENV, PARTITION, type ResolvedTemplate, refOf } from './template.js';

export type PolicyDocument = { Version?: string; Statement: Record<string, unknown>[] | Record<string, unknown> };

/** One request to authorise: an IAM action on one resource ARN (or `*`), with its context keys. */
export interface AwsRequest {
  readonly action: string;
  readonly resource: string;
  readonly context?: Record<string, string | string[]>;
  /** The error name the calling service reports when this request is denied (default: the service's AccessDenied). */
  readonly deniedAs?: string;
}

/** One decision the runtime took, for the run's audit and the test figures. */
export interface Decision {
  readonly principal: string;
  readonly action: string;
  readonly resource: string;
  readonly allowed: boolean;
  /** The request's condition keys (DynamoDB's `dynamodb:LeadingKeys`, S3's, EC2's …). */
  readonly context?: AwsRequest['context'];
}

/** How each service names its access-denied error (SDK `name` and wire `__type`). */
const DENIED_NAME: Record<string, string> = {
  ec2: 'UnauthorizedOperation',
  s3: 'AccessDenied',
  iam: 'AccessDenied',
  sts: 'AccessDenied',
  sns: 'AuthorizationErrorException',
};

/** An error shaped as the SDK throws AccessDenied: name, `__type`, `$fault`, `$metadata`. */
export class AccessDeniedError extends Error {
  override readonly name: string;
  readonly __type: string;
  readonly $fault = 'client' as const;
  readonly $metadata = { httpStatusCode: 403, requestId: '0c0ffee0-0000-4000-8000-000000000403', attempts: 1 };

  constructor(principal: string, request: AwsRequest, why: string) {
    const service = request.action.split(':')[0];
    super(
      `User: ${sessionArn(principal)} is not authorized to perform: ${request.action} on resource: ${request.resource} because ${why}`,
    );
    this.name = request.deniedAs ?? DENIED_NAME[service] ?? 'AccessDeniedException';
    this.__type = this.name;
  }
}

const sessionArn = (principal: string) => {
  const role = /^arn:[^:]+:iam::(\d+):role\/(.+)$/.exec(principal);
  return role ? `arn:${PARTITION}:sts::${role[1]}:assumed-role/${role[2].split('/').pop()}/pod-doctor` : principal;
};

const statements = (doc: PolicyDocument | undefined): Record<string, unknown>[] =>
  doc ? (Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement]) : [];

const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * Lambda::Permission resources as the function's resource-policy statements, with the conditions Lambda
 * adds: `FunctionUrlAuthType` → `lambda:FunctionUrlAuthType`, `InvokedViaFunctionUrl` →
 * `lambda:InvokedViaFunctionUrl` (the InvokeFunction grant a function URL needs since October 2025,
 * valid only for calls through the URL: https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html,
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-permission.html).
 */
function permissionStatement(p: Record<string, unknown>): Record<string, unknown> {
  const principal = String(p.Principal);
  const condition: Record<string, Record<string, unknown>> = {};
  if (p.SourceArn) condition.ArnLike = { 'aws:SourceArn': p.SourceArn };
  if (p.SourceAccount) condition.StringEquals = { 'aws:SourceAccount': p.SourceAccount };
  if (p.FunctionUrlAuthType)
    condition.StringEquals = { ...condition.StringEquals, 'lambda:FunctionUrlAuthType': p.FunctionUrlAuthType };
  if (p.InvokedViaFunctionUrl === true || p.InvokedViaFunctionUrl === 'true')
    condition.Bool = { 'lambda:InvokedViaFunctionUrl': 'true' };
  return {
    Effect: 'Allow',
    Principal: principal === '*' ? '*' : principal.includes('.') ? { Service: principal } : { AWS: principal },
    Action: p.Action,
    Resource: p.FunctionName,
    ...(Object.keys(condition).length ? { Condition: condition } : {}),
  };
}

/** The account a resource ARN names (IAM roles, event buses, tables ...), if it names one. */
export const accountOfArn = (arn: string): string | undefined => /^arn:[^:]+:[^:]+:[^:]*:(\d{12}):/.exec(arn)?.[1];

/** What {@link TemplateAuthorizer.deniedBecause} may take from outside the template. */
export interface Outside {
  /** Identity policies of a principal the template does not hold (a node role, another account's role). */
  readonly identity?: PolicyDocument[];
  /** The resource's policy when another template holds the resource (a role's trust policy, a bus policy). */
  readonly resourcePolicy?: PolicyDocument;
}

/**
 * Authorises requests against a synthesized template as AWS would: the calling role's identity
 * policies (AWS::IAM::Policy / ManagedPolicy attached to it, inline policies; AWS managed policies
 * are unknown here and grant nothing) together with the resource's own policy (KMS key policy,
 * topic, bucket, queue and secret policies, Lambda permissions), evaluated by
 * `@cloud-copilot/iam-simulate`.
 */
export class TemplateAuthorizer {
  readonly decisions: Decision[] = [];
  /** AWS managed policy ARNs attached to roles: their documents are not known locally. */
  readonly unknownManagedPolicies: string[] = [];
  private readonly identity = new Map<string, PolicyDocument[]>();
  private readonly resourcePolicies: { owner: string; objects: boolean; doc: PolicyDocument; stsOnly?: boolean }[] = [];
  private readonly cache = new Map<string, string | undefined>();
  /**
   * The state machine whose task tokens the runtime hands out. SendTaskSuccess/Failure/Heartbeat are
   * wildcard-only in the Service Authorization Reference, yet Step Functions authorises them against
   * the state machine the token belongs to ("… is not authorized to perform: states:SendTaskFailure
   * on resource: arn:aws:states:…:stateMachine:…"): a statement naming that state machine counts.
   */
  taskTokenOwner?: string;

  /** The account the template is deployed to. */
  readonly account: string;

  /** Role name → ARN (path included) of the template's roles. */
  private readonly roleArns = new Map<string, string>();

  constructor(private readonly template: ResolvedTemplate) {
    this.account = (template.env ?? LOCAL_ENV).account;
    for (const [id, r] of Object.entries(template.raw))
      if (r.Type === 'AWS::IAM::Role') this.roleArns.set(refOf(template, id), arnOf(template, id));
    for (const [id, r] of Object.entries(template.Resources)) this.index(id, r);
  }

  private index(id: string, r: CfnResource): void {
    const p = r.Properties ?? {};
    const addIdentity = (roleNames: unknown, doc: unknown) => {
      for (const name of asList(roleNames as string | string[])) {
        const arn = this.roleArns.get(name) ?? `arn:${PARTITION}:iam::${this.account}:role/${name}`;
        this.identity.set(arn, [...(this.identity.get(arn) ?? []), doc as PolicyDocument]);
      }
    };
    switch (r.Type) {
      case 'AWS::IAM::Policy':
      case 'AWS::IAM::ManagedPolicy':
        addIdentity(p.Roles, p.PolicyDocument);
        break;
      case 'AWS::IAM::Role': {
        const name = refOf(this.template, id);
        // The trust policy is the role's resource policy for sts:AssumeRole.
        if (p.AssumeRolePolicyDocument)
          this.resourcePolicies.push({
            owner: arnOf(this.template, id),
            objects: false,
            doc: p.AssumeRolePolicyDocument as never,
            stsOnly: true,
          });
        for (const inline of asList(p.Policies as { PolicyDocument: unknown }[]))
          addIdentity(name, inline.PolicyDocument);
        for (const arn of asList(p.ManagedPolicyArns as string[])) {
          const local = Object.values(this.template.Resources).find(
            (x) => x.Type === 'AWS::IAM::ManagedPolicy' && x.Properties?.ManagedPolicyName === arn.split('/').pop(),
          );
          if (local) addIdentity(name, local.Properties?.PolicyDocument);
          else this.unknownManagedPolicies.push(arn);
        }
        break;
      }
      case 'AWS::KMS::Key':
        this.resourcePolicies.push({ owner: arnOf(this.template, id), objects: false, doc: p.KeyPolicy as never });
        break;
      case 'AWS::SNS::TopicPolicy':
        for (const t of asList(p.Topics as string[]))
          this.resourcePolicies.push({ owner: t, objects: false, doc: p.PolicyDocument as never });
        break;
      case 'AWS::S3::BucketPolicy':
        this.resourcePolicies.push({
          owner: `arn:${PARTITION}:s3:::${String(p.Bucket)}`,
          objects: true,
          doc: p.PolicyDocument as never,
        });
        break;
      case 'AWS::SecretsManager::ResourcePolicy':
        this.resourcePolicies.push({ owner: String(p.SecretId), objects: false, doc: p.ResourcePolicy as never });
        break;
      case 'AWS::Events::EventBus':
        if (p.Policy)
          this.resourcePolicies.push({ owner: arnOf(this.template, id), objects: false, doc: p.Policy as never });
        break;
      case 'AWS::Events::EventBusPolicy':
        this.resourcePolicies.push({
          owner: busArn(String(p.EventBusName ?? 'default'), this.template),
          objects: false,
          doc: (p.Statement ? { Version: '2012-10-17', Statement: [p.Statement] } : { Statement: [] }) as never,
        });
        break;
      case 'AWS::Lambda::Permission':
        this.resourcePolicies.push({
          owner: String(p.FunctionName),
          objects: false,
          doc: { Version: '2012-10-17', Statement: [permissionStatement(p)] },
        });
        break;
    }
  }

  /** The merged resource policy that governs `action` on `resource`, if any (a trust policy: sts: only). */
  resourcePolicy(resource: string, action = ''): PolicyDocument | undefined {
    const sts = action.toLowerCase().startsWith('sts:');
    const matching = this.resourcePolicies.filter(
      (x) =>
        (x.stsOnly ? sts : !sts || !resource.includes(':iam::')) &&
        (resource === x.owner ||
          (x.objects && resource.startsWith(`${x.owner}/`)) ||
          (x.owner.includes(':function:') && resource.startsWith(`${x.owner}:`))),
    );
    if (!matching.length) return undefined;
    return { Version: '2012-10-17', Statement: matching.flatMap((x) => statements(x.doc)) };
  }

  /** Whether the template holds the role `arn` (path included). */
  holdsRole(arn: string): boolean {
    return [...this.roleArns.values()].includes(arn);
  }

  /** Identity policies of a role ARN. */
  identityPolicies(principal: string): PolicyDocument[] {
    return this.identity.get(principal) ?? [];
  }

  /** For task-token actions, statements naming the token's state machine apply as `*` (see {@link taskTokenOwner}). */
  private forTaskToken(action: string, doc: PolicyDocument): PolicyDocument {
    const owner = this.taskTokenOwner;
    if (!owner || !/^states:SendTask/.test(action)) return doc;
    const glob = (pattern: string) =>
      new RegExp(
        `^${pattern
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.')}$`,
      );
    return {
      ...doc,
      Statement: statements(doc).map((st) =>
        asList(st.Resource as string | string[]).some((r) => glob(r).test(owner)) ? { ...st, Resource: '*' } : st,
      ),
    };
  }

  /**
   * Throws the service's AccessDenied error unless `principal` (a role ARN, or `anonymous`) may make
   * `request`. `identity` stands in for the identity policies of a principal outside the template
   * (a node role, as the recorded account holds it).
   */
  async authorize(principal: string, request: AwsRequest, identity?: PolicyDocument[] | Outside): Promise<void> {
    const why = await this.deniedBecause(principal, request, identity);
    this.decisions.push({
      principal,
      action: request.action,
      resource: request.resource,
      allowed: !why,
      ...(request.context ? { context: request.context } : {}),
    });
    if (why) throw new AccessDeniedError(principal, request, why);
  }

  /** Why the request is denied, or undefined when it is allowed. */
  async deniedBecause(
    principal: string,
    request: AwsRequest,
    outside?: PolicyDocument[] | Outside,
  ): Promise<string | undefined> {
    const { identity, resourcePolicy: foreign } = Array.isArray(outside) ? { identity: outside } : (outside ?? {});
    const key = JSON.stringify([principal, request.action, request.resource, request.context, identity, foreign]);
    if (this.cache.has(key)) return this.cache.get(key);
    const anonymous = principal === 'anonymous';
    const resourcePolicy = foreign ?? this.resourcePolicy(request.resource, request.action);
    const response = await runSimulation(
      {
        request: {
          principal: anonymous ? anonymousPrincipal : principal,
          action: request.action,
          resource: { resource: request.resource, accountId: accountOfArn(request.resource) ?? this.account },
          contextVariables: { 'aws:SecureTransport': 'true', ...request.context },
        },
        identityPolicies: anonymous
          ? []
          : (identity ?? this.identityPolicies(principal)).map((policy, i) => ({
              name: `policy-${i}`,
              policy: onlyStarAllows(request.resource, this.forTaskToken(request.action, policy)),
            })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
      } as never,
      {},
    );
    let why: string | undefined;
    if (response.resultType === 'error') {
      throw new Error(`IAM simulation of ${request.action} on ${request.resource}: ${JSON.stringify(response.errors)}`);
    }
    if (response.overallResult === 'ExplicitlyDenied') why = 'an explicit deny in a policy applies';
    else if (response.overallResult !== 'Allowed')
      why = resourcePolicy
        ? 'no identity-based or resource-based policy allows it'
        : `no identity-based policy allows the ${request.action} action`;
    this.cache.set(key, why);
    return why;
  }
}

/** An event bus's ARN from its name or ARN (`default` when a policy names none). */
function busArn(nameOrArn: string, template: ResolvedTemplate): string {
  if (nameOrArn.startsWith('arn:')) return nameOrArn;
  const env = template.env ?? LOCAL_ENV;
  return `arn:${PARTITION}:events:${env.region}:${env.account}:event-bus/${nameOrArn}`;
}

/**
 * A request on `*` is a wildcard-only action (Describe*, GetCommandInvocation …), and IAM lets only
 * a statement on `*` allow it. iam-simulate reads a `*` request as "any resource", so an Allow scoped
 * to one ARN would pass here and be refused in AWS: keep only the Allow statements on `*`.
 */
function onlyStarAllows(resource: string, doc: PolicyDocument): PolicyDocument {
  if (resource !== '*') return doc;
  return {
    ...doc,
    Statement: statements(doc).filter(
      (st) =>
        st.Effect !== 'Allow' || st.NotResource !== undefined || asList(st.Resource as string | string[]).includes('*'),
    ),
  };
}

/**
 * A copy of `template` in which no identity policy of the roles whose logical id matches `role`
 * grants `action` (case-insensitive; wildcards in the policy are not expanded). Throws when no
 * statement granted it: a test removing a grant must remove one.
 */
export function withoutGrant(template: ResolvedTemplate, role: RegExp, action: string): ResolvedTemplate {
  const copy = structuredClone(template);
  const roleNames = Object.keys(copy.raw)
    .filter((id) => copy.raw[id].Type === 'AWS::IAM::Role' && role.test(id))
    .map((id) => refOf(copy, id));
  let removed = 0;
  for (const r of Object.values(copy.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy' || !asList(r.Properties?.Roles as string[]).some((n) => roleNames.includes(n)))
      continue;
    const doc = r.Properties?.PolicyDocument as PolicyDocument;
    doc.Statement = statements(doc).flatMap((st) => {
      const actions = asList(st.Action as string | string[]);
      const kept = actions.filter((a) => a.toLowerCase() !== action.toLowerCase());
      removed += actions.length - kept.length;
      return kept.length ? [{ ...st, Action: kept }] : [];
    });
  }
  if (!removed) throw new Error(`no policy of a role matching ${role} grants ${action}`);
  return copy;
}
