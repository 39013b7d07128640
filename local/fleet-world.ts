import { randomUUID } from 'node:crypto';
import { AccessDeniedError, type AwsRequest, accountOfArn, type Decision, TemplateAuthorizer } from './iam.js';
import {
  type CfnResource,
  idsOfType,
  type LocalEnv,
  PARTITION,
  type ResolvedTemplate,
  resolveTemplate,
} from './template.js';

// Several accounts and Regions in one local world: each deployed template keeps its own IAM, an
// organization says who is a member, STS decides AssumeRole from the caller's identity policies and
// the role's trust policy, and EventBridge stamps `account`/`region` and decides PutEvents across
// accounts from the sender's identity policies and the bus's policy. Everything is read from the
// synthesized templates: nothing here grants by itself.

/** An AWS Organization: its id and member accounts (an account that left is no longer one). */
export class LocalOrganization {
  private readonly members: Set<string>;

  constructor(
    readonly id: string,
    accounts: readonly string[],
  ) {
    this.members = new Set(accounts);
  }

  /** `aws:PrincipalOrgID` of a principal in `account` (absent when it is not a member). */
  orgOf(account: string): string | undefined {
    return this.members.has(account) ? this.id : undefined;
  }

  /** The account leaves the organization. */
  remove(account: string): void {
    this.members.delete(account);
  }
}

/** A template as deployed in one account and Region. */
export interface Deployment {
  readonly env: LocalEnv;
  readonly template: ResolvedTemplate;
  readonly authz: TemplateAuthorizer;
}

/** Credentials STS handed out: who the session is, which role, until when. */
export interface Session {
  readonly roleArn: string;
  readonly account: string;
  readonly assumedRoleArn: string;
  readonly sessionName: string;
  /** The role that assumed this one (role chaining). */
  readonly sourceArn: string;
  /** The source identity set when it was assumed: every call of the session carries it (`aws:SourceIdentity`). */
  readonly sourceIdentity?: string;
}

/** An event as EventBridge delivers it: `account` and `region` are the sender's, set by EventBridge. */
export interface DeliveredEvent {
  readonly version: '0';
  readonly id: string;
  readonly source: string;
  readonly 'detail-type': string;
  readonly account: string;
  readonly region: string;
  readonly time: string;
  readonly resources: string[];
  readonly detail: unknown;
}

/** A rule's target: another bus (a role of the rule's account does the PutEvents) or a function. */
interface BusTarget {
  readonly from: Deployment;
  readonly pattern: Record<string, unknown>;
  readonly bus: string;
  readonly targetArn: string;
  readonly roleArn?: string;
}

export type PatternMatcher = (pattern: Record<string, unknown>, event: unknown) => boolean;

/** The error STS answers for a role that does not exist or does not trust the caller. */
const stsDenied = (caller: string, request: AwsRequest, why: string) =>
  new AccessDeniedError(caller, { ...request, deniedAs: 'AccessDenied' }, why);

export class FleetWorld {
  readonly deployments: Deployment[] = [];
  /** Every cross-account decision the world took (AssumeRole, PutEvents), for the test's audit. */
  readonly decisions: Decision[] = [];
  /** Events each bus received, by bus ARN. */
  readonly received = new Map<string, DeliveredEvent[]>();
  /** Events a bus refused (the sender's PutEvents was denied), with why. */
  readonly refused: { bus: string; from: string; why: string }[] = [];
  /** Regions the network cannot reach (an outage, an SCP-closed Region). */
  readonly unreachable = new Set<string>();
  /** Functions rules may invoke, by ARN (the test wires the real handler with its role). */
  private readonly functions = new Map<string, (event: DeliveredEvent) => Promise<unknown>>();

  /** `handler` runs when a rule targets the function `arn` (an asynchronous invocation by EventBridge). */
  onFunction(arn: string, handler: (event: DeliveredEvent) => Promise<unknown>): void {
    this.functions.set(arn, handler);
  }

  constructor(
    readonly organization: LocalOrganization,
    private readonly matches: PatternMatcher,
  ) {}

  /** Deploys a synthesized template in `env` (StackSet parameters in `parameters`). */
  deploy(
    template: { Resources: Record<string, CfnResource> },
    env: LocalEnv,
    parameters: Record<string, string> = {},
  ): Deployment {
    const resolved = resolveTemplate(template, env, parameters);
    const d = { env, template: resolved, authz: new TemplateAuthorizer(resolved) };
    this.deployments.push(d);
    return d;
  }

  /** The stack is deleted: its roles, rules and buses are gone. */
  undeploy(d: Deployment): void {
    this.deployments.splice(this.deployments.indexOf(d), 1);
  }

  /** The deployment holding the role `roleArn` (path included), if one does. */
  holderOfRole(roleArn: string): Deployment | undefined {
    return this.deployments.find((d) => d.authz.holdsRole(roleArn));
  }

  private checkReachable(region: string, what: string): void {
    if (this.unreachable.has(region))
      throw Object.assign(new Error(`connect ETIMEDOUT ${what}.${region}.amazonaws.com:443`), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      });
  }

  /**
   * sts:AssumeRole as STS decides it: the caller's identity policies must allow it on the role, the
   * role's trust policy must admit the caller (with `aws:PrincipalArn`, `aws:PrincipalAccount`,
   * `aws:PrincipalOrgID` and `sts:ExternalId` as the request carries them). A role that does not
   * exist answers AccessDenied, as STS does.
   */
  async assumeRole(
    caller: string,
    roleArn: string,
    options: { externalId?: string; sessionName: string; region: string; sourceIdentity?: string },
  ): Promise<Session> {
    this.checkReachable(options.region, 'sts');
    const callerAccount = accountOfArn(caller.replace(':sts::', ':iam::x:')) ?? /::(\d{12}):/.exec(caller)?.[1] ?? '';
    const request: AwsRequest = {
      action: 'sts:AssumeRole',
      resource: roleArn,
      context: {
        'aws:PrincipalArn': caller,
        'aws:PrincipalAccount': callerAccount,
        ...(this.organization.orgOf(callerAccount) ? { 'aws:PrincipalOrgID': this.organization.id } : {}),
        ...(options.externalId !== undefined ? { 'sts:ExternalId': options.externalId } : {}),
        ...(options.sourceIdentity !== undefined ? { 'sts:SourceIdentity': options.sourceIdentity } : {}),
        // Present only when the role's account is in an organization (the IAM condition key reference).
        ...(this.organization.orgOf(accountOfArn(roleArn) ?? '') ? { 'aws:ResourceOrgID': this.organization.id } : {}),
      },
    };
    // A source identity is authorised as its own action, sts:SetSourceIdentity, by both policies.
    const requests: AwsRequest[] =
      options.sourceIdentity === undefined ? [request] : [request, { ...request, action: 'sts:SetSourceIdentity' }];
    for (const r of requests) {
      const why = await this.trustDecision(caller, roleArn, r);
      this.decisions.push({ principal: caller, action: r.action, resource: roleArn, allowed: !why });
      if (why) throw stsDenied(caller, r, why);
    }
    const account = accountOfArn(roleArn) ?? '';
    const name = roleArn.split('/').pop() ?? '';
    return {
      roleArn,
      account,
      assumedRoleArn: `arn:${PARTITION}:sts::${account}:assumed-role/${name}/${options.sessionName}`,
      sessionName: options.sessionName,
      sourceArn: caller,
      ...(options.sourceIdentity !== undefined ? { sourceIdentity: options.sourceIdentity } : {}),
    };
  }

  /** Why STS refuses `request` on `roleArn` for `caller` (its identity policies, the role's trust policy), if it does. */
  private async trustDecision(caller: string, roleArn: string, request: AwsRequest): Promise<string | undefined> {
    const from = this.holderOfRole(caller);
    const target = this.holderOfRole(roleArn);
    if (!from) return `no role ${caller} exists in this world`;
    if (!target) return 'the role does not exist';
    return from.authz.deniedBecause(caller, request, {
      identity: from.authz.identityPolicies(caller),
      resourcePolicy: target.authz.resourcePolicy(roleArn, request.action) ?? { Statement: [] },
    });
  }

  /** Authorises `request` made with an assumed session: the role's own identity policies, in its account. */
  async authorizeAs(session: Session, request: AwsRequest): Promise<void> {
    const holder = this.holderOfRole(session.roleArn);
    if (!holder) throw stsDenied(session.roleArn, request, 'the session’s role no longer exists');
    this.checkReachable(
      accountOfArn(request.resource) ? request.resource.split(':')[3] || holder.env.region : holder.env.region,
      request.action.split(':')[0],
    );
    const sourceIdentity: Record<string, string> =
      session.sourceIdentity === undefined ? {} : { 'aws:SourceIdentity': session.sourceIdentity };
    const decision = { principal: session.assumedRoleArn, action: request.action, resource: request.resource };
    try {
      await holder.authz.authorize(session.roleArn, { ...request, context: { ...request.context, ...sourceIdentity } });
    } catch (e) {
      this.decisions.push({ ...decision, allowed: false });
      throw e;
    }
    this.decisions.push({ ...decision, allowed: true });
  }

  /**
   * PutEvents onto the sender's own default bus by `principal` (a function's role): EventBridge stamps
   * the sender's account and Region, then every rule of that bus whose pattern matches delivers.
   */
  async putEvents(
    principal: string,
    env: LocalEnv,
    entry: { source: string; detailType: string; detail: string },
  ): Promise<DeliveredEvent> {
    const holder = this.holderOfRole(principal);
    const bus = `arn:${PARTITION}:events:${env.region}:${env.account}:event-bus/default`;
    if (!holder) throw stsDenied(principal, { action: 'events:PutEvents', resource: bus }, 'no such role');
    if (entry.source.startsWith('aws.'))
      throw Object.assign(new Error('Source aws. is reserved'), { name: 'ValidationException' });
    await holder.authz.authorize(principal, {
      action: 'events:PutEvents',
      resource: bus,
      // Multivalued keys (one value per entry of the request).
      context: { 'events:source': [entry.source], 'events:detail-type': [entry.detailType] },
    });
    const event = this.stamp(env, entry.source, entry.detailType, JSON.parse(entry.detail));
    await this.deliver(bus, event);
    return event;
  }

  /** An AWS service (CloudTrail) emits `event` on the default bus of `env`. */
  async emitServiceEvent(env: LocalEnv, source: string, detailType: string, detail: unknown): Promise<DeliveredEvent> {
    const event = this.stamp(env, source, detailType, detail);
    await this.deliver(`arn:${PARTITION}:events:${env.region}:${env.account}:event-bus/default`, event);
    return event;
  }

  private stamp(env: LocalEnv, source: string, detailType: string, detail: unknown): DeliveredEvent {
    return {
      version: '0',
      id: randomUUID(),
      source,
      'detail-type': detailType,
      account: env.account,
      region: env.region,
      time: new Date().toISOString(),
      resources: [],
      detail,
    };
  }

  /** Delivers to `bus`, then through every matching rule of it: to another bus, or to a function. */
  private async deliver(bus: string, event: DeliveredEvent): Promise<void> {
    this.received.set(bus, [...(this.received.get(bus) ?? []), event]);
    for (const t of this.ruleTargets(bus)) {
      if (!this.matches(t.pattern, event)) continue;
      if (t.targetArn.includes(':event-bus/')) await this.forward(t, event);
      else if (t.targetArn.includes(':function:')) await this.invoke(t.targetArn, event);
    }
  }

  /** EventBridge invokes the function; one without a handler wired is an error of the test, not a silent drop. */
  private async invoke(arn: string, event: DeliveredEvent): Promise<void> {
    const handler = this.functions.get(arn);
    if (!handler) throw new Error(`no handler wired for ${arn}`);
    await handler(event);
  }

  /**
   * A rule's bus target: the target role (in the rule's account) does the PutEvents; its identity
   * policies and the receiving bus's policy decide, with the sender's `aws:PrincipalOrgID`.
   * The event keeps its `account`: EventBridge forwards, it does not re-stamp.
   */
  private async forward(t: BusTarget, event: DeliveredEvent): Promise<void> {
    const receiver = this.deployments.find((d) => this.busesOf(d).some((b) => b.arn === t.targetArn));
    const sender = t.from.env.account;
    const request: AwsRequest = {
      action: 'events:PutEvents',
      resource: t.targetArn,
      context: {
        'aws:PrincipalAccount': sender,
        ...(this.organization.orgOf(sender) ? { 'aws:PrincipalOrgID': this.organization.id } : {}),
        ...(t.roleArn ? { 'aws:PrincipalArn': t.roleArn } : {}),
      },
    };
    const why = this.unreachable.has(t.targetArn.split(':')[3])
      ? `the Region ${t.targetArn.split(':')[3]} cannot be reached`
      : !receiver
        ? 'the target bus does not exist'
        : !t.roleArn
          ? 'the rule target has no role'
          : await t.from.authz.deniedBecause(t.roleArn, request, {
              identity: t.from.authz.identityPolicies(t.roleArn),
              resourcePolicy: receiver.authz.resourcePolicy(t.targetArn, 'events:PutEvents') ?? { Statement: [] },
            });
    this.decisions.push({
      principal: t.roleArn ?? sender,
      action: 'events:PutEvents',
      resource: t.targetArn,
      allowed: !why,
    });
    if (why) {
      this.refused.push({ bus: t.targetArn, from: `${sender}/${t.from.env.region}`, why });
      return;
    }
    await this.deliver(t.targetArn, event);
  }

  /** The custom buses a deployment holds. */
  private busesOf(d: Deployment): { id: string; arn: string }[] {
    return idsOfType(d.template, 'AWS::Events::EventBus').map((id) => ({
      id,
      arn: `arn:${PARTITION}:events:${d.env.region}:${d.env.account}:event-bus/${String(d.template.Resources[id].Properties?.Name)}`,
    }));
  }

  /** Targets of the rules on `bus` (every deployment in its account and Region). */
  private ruleTargets(bus: string): BusTarget[] {
    const [, , , region, account] = bus.split(':');
    const out: BusTarget[] = [];
    for (const d of this.deployments) {
      if (d.env.account !== account || d.env.region !== region) continue;
      for (const id of idsOfType(d.template, 'AWS::Events::Rule')) {
        const p = d.template.Resources[id].Properties ?? {};
        const ruleBus = String(p.EventBusName ?? 'default');
        const onBus = ruleBus.startsWith('arn:')
          ? ruleBus
          : `arn:${PARTITION}:events:${region}:${account}:event-bus/${ruleBus}`;
        if (onBus !== bus || p.State === 'DISABLED') continue;
        for (const t of (p.Targets as { Arn: string; RoleArn?: string }[] | undefined) ?? [])
          out.push({
            from: d,
            pattern: p.EventPattern as Record<string, unknown>,
            bus,
            targetArn: t.Arn,
            roleArn: t.RoleArn,
          });
      }
    }
    return out;
  }
}
