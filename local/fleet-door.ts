import { GetCommandInvocationCommand, SendCommandCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import type { DoorFleet, MemberDoorClients } from '../lambdas/aws/door/executor.js';
import { type AssumeRole, SpokeBroker } from '../lambdas/aws/runtime/credential-broker.js';
import { spokeDocuments } from '../lambdas/core/fleet/fleet-reach.js';
import { type AccountSnapshot, healthyAccount } from './account-snapshot.js';
import type { Deployment, FleetWorld, Session } from './fleet-world.js';
import { type CallSite, requestsOf, UnmappedCallError } from './guard.js';
import type { LocalKubernetes } from './kubernetes.js';
import { unreachableCluster } from './kubernetes.js';
import { DOCUMENTS } from './local-workflow.js';
import { mockAccount } from './mock-account.js';
import { ACCOUNT, CLUSTER } from './recorded-account.js';
import { documentsOf, type LocalNodeBehaviour, LocalRunCommand } from './ssm-runtime.js';
import { PARTITION } from './template.js';

// A fleet member as the hub's door meets it: STS (the world) hands the door a session of the
// member's door role when the templates' trust policy and grants allow it; every call of that
// session is authorised against the member's spoke template as that role (with the session's
// source identity); Run Command runs on the member's own local node with the member's own documents.

/** One member account and Region: what its AWS answers (a recorded account), its node, its spoke. */
export interface LocalMember {
  readonly account: AccountSnapshot;
  readonly node: LocalNodeBehaviour;
  readonly spoke: Deployment;
  /** The member cluster's Kubernetes API (default: one that does not accept pod-doctor's token). */
  readonly kubernetes?: LocalKubernetes;
}

/** The recorded healthy account as member `account`'s, its cluster named `cluster`. */
export function memberAccount(account: string, cluster: string): AccountSnapshot {
  const rename = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replaceAll(ACCOUNT, account).replaceAll(CLUSTER, cluster);
    if (Array.isArray(v)) return v.map(rename);
    if (v instanceof Date || v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [rename(k) as string, rename(x)]));
  };
  return rename(healthyAccount()) as AccountSnapshot;
}

/** `node` answering to the fleet's document names in a member account as it does to the local ones. */
export function memberNode(fleet: string, node: LocalNodeBehaviour): LocalNodeBehaviour {
  const member = spokeDocuments(fleet);
  const local = Object.fromEntries(
    Object.entries(member).map(([k, name]) => [name, DOCUMENTS[k as keyof typeof DOCUMENTS]]),
  );
  return {
    managed: node.managed,
    run: (document, parameters, n) => node.run(local[document] ?? document, parameters, n),
  };
}

/** Makes every `send` of `client` authorised first as `session`, in `where`, by the world. */
function asSession<C extends { send(command: unknown): Promise<unknown> }>(
  client: C,
  service: string,
  world: FleetWorld,
  session: Session,
  where: CallSite,
  extra: (command: string, input: Record<string, unknown>) => { action: string; resource: string }[] = () => [],
): C {
  const send = client.send.bind(client);
  client.send = (async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const name = command.constructor.name;
    for (const r of [...requestsOf(service, name, command.input, where), ...extra(name, command.input)])
      await world.authorizeAs(session, r);
    return send(command);
  }) as C['send'];
  return client;
}

/** SendCommand authorises each instance with its tags (the conditions of the door role's grant). */
const instanceRequests = (account: AccountSnapshot, where: CallSite) => (command: string, i: Record<string, unknown>) =>
  command !== 'SendCommandCommand'
    ? []
    : (i.InstanceIds as string[]).map((id) => ({
        action: 'ssm:SendCommand',
        resource: `arn:${PARTITION}:ec2:${where.region}:${where.account}:instance/${id}`,
        context: Object.fromEntries(
          (account.instances.find((x) => x.InstanceId === id)?.Tags ?? []).flatMap((t) => [
            [`ssm:resourceTag/${t.Key}`, String(t.Value)],
            [`aws:ResourceTag/${t.Key}`, String(t.Value)],
          ]),
        ),
      }));

/** The member's clients for one session: its recorded account, Run Command on its node, its cluster. */
function memberClients(
  world: FleetWorld,
  fleet: string,
  m: LocalMember,
  session: Session,
  where: CallSite,
  record: DoorFleetRecord,
): MemberDoorClients {
  const aws = mockAccount(m.account);
  asSession(aws.ec2, 'ec2', world, session, where);
  asSession(aws.iam, 'iam', world, session, where);
  asSession(aws.eks, 'eks', world, session, where);
  const commands = new LocalRunCommand(documentsOf(m.spoke.template), m.node);
  const ssm = new SSMClient({ region: where.region, credentials: { accessKeyId: 'ASIALOCAL', secretAccessKey: 'x' } });
  const mock = mockClient(ssm);
  mock.on(SendCommandCommand).callsFake(async (i) => {
    const out = await commands.send(i);
    record.commands.push({ where, document: i.DocumentName, instanceId: i.InstanceIds[0] });
    return { ...out, $metadata: {} };
  });
  mock.on(GetCommandInvocationCommand).callsFake(async (i) => ({ ...commands.get(i), $metadata: {} }));
  asSession(ssm, 'ssm', world, session, where, instanceRequests(m.account, where));
  const kubernetes = m.kubernetes ?? unreachableCluster;
  return { ssm, aws, cluster: async () => kubernetes.api(session.roleArn), documents: spokeDocuments(fleet) };
}

/** What the local door fleet saw: the sessions STS handed out and the commands each member ran. */
export interface DoorFleetRecord {
  readonly sessions: Session[];
  readonly commands: { readonly where: CallSite; readonly document: string; readonly instanceId: string }[];
}

/**
 * The hub door's fleet, locally: the real broker (lambdas/aws/runtime/credential-broker.ts) with STS as the world
 * decides it for `doorRole`, and each member's clients authorised as the session it got.
 */
export function localDoorFleet(
  world: FleetWorld,
  o: {
    readonly fleet: string;
    readonly hubAccount: string;
    readonly hubRegion: string;
    /** The hub door function's role (the caller of AssumeRole). */
    readonly doorRole: string;
    /** Members by `account/region`. */
    readonly members: ReadonlyMap<string, LocalMember>;
    readonly now: () => number;
  },
): DoorFleet & DoorFleetRecord {
  const record: DoorFleetRecord = { sessions: [], commands: [] };
  const sts = localSts(world, o.doorRole, o.hubRegion, o.now, record.sessions);
  const { assume } = sts;
  const broker = new SpokeBroker({ fleet: o.fleet, partition: PARTITION, assume, now: o.now }, (where, credentials) => {
    const member = o.members.get(`${where.account}/${where.region}`);
    if (!member) throw new UnmappedCallError(`no local member ${where.account}/${where.region}`);
    // The broker assumed already: the first credentials name the session.
    return credentials().then((c) => memberClients(world, o.fleet, member, sts.sessionOf(c), where, record));
  });
  return {
    ...record,
    hubAccount: o.hubAccount,
    reach: async (where, session) => broker.clients(where, session),
  };
}

/**
 * STS from the hub, locally: `caller` (a hub function's role) assumes what the broker asks, as the
 * world decides it; each session's credentials carry a token that names it.
 */
export function localSts(
  world: FleetWorld,
  caller: string,
  hubRegion: string,
  now: () => number,
  sessions: Session[] = [],
): { assume: AssumeRole; sessionOf(credentials: { sessionToken?: string }): Session; last(): Session | undefined } {
  const byToken = new Map<string, Session>();
  const assume: AssumeRole = (params) => async () => {
    const session = await world.assumeRole(caller, params.RoleArn, {
      externalId: params.ExternalId,
      sessionName: params.RoleSessionName,
      region: hubRegion,
      ...(params.SourceIdentity ? { sourceIdentity: params.SourceIdentity } : {}),
    });
    sessions.push(session);
    const token = `session-${sessions.length}`;
    byToken.set(token, session);
    return {
      accessKeyId: 'ASIALOCAL',
      secretAccessKey: 'x',
      sessionToken: token,
      expiration: new Date(now() + params.DurationSeconds * 1000),
    };
  };
  return {
    assume,
    sessionOf: (c) => byToken.get(String(c.sessionToken)) as Session,
    last: () => sessions.at(-1),
  };
}

/**
 * A member's read clients (EC2, IAM, EKS of its recorded account) for the session STS just handed
 * out (the broker calls `make` right after it assumed): every call authorised as that session.
 */
export function memberReadClients(
  world: FleetWorld,
  members: ReadonlyMap<string, LocalMember>,
  sts: ReturnType<typeof localSts>,
): (where: CallSite) => ReturnType<typeof mockAccount> {
  return (where) => {
    const member = members.get(`${where.account}/${where.region}`);
    const session = sts.last();
    if (!member || !session) throw new UnmappedCallError(`no local member ${where.account}/${where.region}`);
    const aws = mockAccount(member.account);
    asSession(aws.ec2, 'ec2', world, session, where);
    asSession(aws.iam, 'iam', world, session, where);
    asSession(aws.eks, 'eks', world, session, where);
    return aws;
  };
}
