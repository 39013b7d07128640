import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkHandler } from '../../lambdas/aws/checks/handler-kit.js';
import { runNetworkGroup } from '../../lambdas/aws/checks/network-group.js';
import { doorInputSchema } from '../../lambdas/aws/door/door-input.js';
import { doorStep } from '../../lambdas/aws/door/service.js';
import { resolveNode } from '../../lambdas/aws/readers/account/node-context.js';
import { SpokeUnreachableError } from '../../lambdas/aws/runtime/credential-broker.js';
import { memberReads } from '../../lambdas/aws/runtime/member-reads.js';
import { grantKey } from '../../lambdas/core/contract/incident-table.js';
import { type ActionRequest, requestDigest } from '../../lambdas/core/door/action-request.js';
import type { DoorState } from '../../lambdas/core/door/state.js';
import { spokeRoleArn } from '../../lambdas/core/fleet/fleet.js';
import { spokeDoorRoleArn } from '../../lambdas/core/fleet/fleet-reach.js';
import { healthyAccount, NODE_DNS, NODE_ID } from '../../local/account-snapshot.js';
import {
  type LocalMember,
  localDoorFleet,
  localSts,
  memberAccount,
  memberNode,
  memberReadClients,
} from '../../local/fleet-door.js';
import { asRole } from '../../local/guard.js';
import { definitionOf, deployedWorkflowConfig } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { documentsOf, LocalRunCommand } from '../../local/ssm-runtime.js';
import { StackRoles } from '../../local/stack-roles.js';
import { workflowClients } from '../../local/workflow-clients.js';
import { FLEET } from '../support/fleet-templates.js';
import { clusterOf, type Fleet, fleet, fnOf, HUB, NOW } from '../support/fleet-world-kit.js';

// The hub's door acting in member accounts: the real door (lambdas/aws/door/service.ts) as the hub's
// door role, its member clients from the real broker, STS and every member-side call decided by the
// world from the synthesized templates (the member's door role: its trust policy, external id and
// source identity; its grants), Run Command on the member's own node with the member's documents.

const [A, B, C] = FLEET.members.map((m) => m.account);
const REGION = 'eu-west-1';
const INCIDENT = { id: 'a1b2c3d4e5f60718-1796033100', class: 'sandbox-image' as const };
const PAUSE = `602401143452.dkr.ecr.${REGION}.amazonaws.com/eks/pause:3.5`;

interface World {
  f: Fleet;
  doorRole: string;
  members: Map<string, LocalMember>;
  door: ReturnType<typeof localDoorFleet>;
  hubCommands: LocalRunCommand;
  deps: Parameters<typeof doorStep>[1];
}

async function world(): Promise<World> {
  const f = await fleet();
  const doorRole = fnOf(f.hub, 'door').role;
  const members = new Map<string, LocalMember>();
  for (const m of FLEET.members)
    for (const region of m.regions)
      members.set(`${m.account}/${region}`, {
        account: memberAccount(m.account, clusterOf(m.account)),
        node: memberNode(FLEET.name, simulatedPauseNode()),
        spoke: f.spokes.get(`${m.account}/${region}`) as never,
      });
  const clock = { t: NOW };
  const door = localDoorFleet(f.world, {
    fleet: FLEET.name,
    hubAccount: HUB.account,
    hubRegion: HUB.region,
    doorRole,
    members,
    now: () => clock.t,
  });
  const template = f.hub.template;
  const hubCommands = new LocalRunCommand(documentsOf(template), simulatedPauseNode());
  const roles = new StackRoles(template, definitionOf(template));
  const config = await deployedWorkflowConfig(template, f.table, f.hub.authz, roles);
  const c = workflowClients({
    commands: hubCommands,
    template,
    authz: f.hub.authz,
    account: healthyAccount(),
    table: f.table,
    killSwitchName: config.killSwitchParameterName,
  });
  const deps = {
    ddb: c.ddb,
    ssm: c.ssm,
    s3: c.s3,
    aws: c.aws,
    cluster: async () => {
      throw new Error('no cluster in this test');
    },
    config,
    now: () => (clock.t += 1_000),
    fleet: door,
  };
  return { f, doorRole, members, door, hubCommands, deps };
}

/** The door's input for the pause repair of the node in `account`, as the workflow sends it. */
function repairInput(
  account: string,
  o: { disposition?: 'auto' | 'approve'; approval?: object; region?: string } = {},
) {
  const region = o.region ?? REGION;
  return doorInputSchema.parse({
    door: {
      call: {
        id: 'act-repair',
        slot: 'act',
        returnTo: 'act',
        request: {
          action: { kind: 'repair-pause-image', node: { instanceId: NODE_ID, name: NODE_DNS }, image: PAUSE },
          disposition: o.disposition ?? 'auto',
          description: 'Repair the sandbox (pause) image in place and pin it',
          reason: 'the node probe shows the pause image missing',
        },
      },
      ...(o.approval ? { approval: o.approval } : {}),
    },
    incident: { ...INCIDENT, key: `${account}|${region}|sandbox-image|node|${NODE_ID}`, cluster: clusterOf(account) },
    execution: `arn:aws:states:${HUB.region}:${HUB.account}:execution:PodDoctor:${INCIDENT.id}`,
    region,
    account,
    polls: { probe: 5, action: 5 },
  });
}

/** The door's steps for one call (its poll loop), as the door's role, until it returns or asks. */
async function throughDoor(w: World, input: ReturnType<typeof repairInput>): Promise<DoorState> {
  let door = input.door;
  for (let i = 0; i < 20; i++) {
    door = await asRole(w.doorRole, () => doorStep({ ...input, door }, w.deps));
    // 'await': Run Command's status-change event resumes the door, which then reads the result (as 'wait' does).
    if (door.run?.step !== 'wait' && door.run?.step !== 'await') return door;
  }
  throw new Error('the door never finished');
}

describe('the hub’s door acts in a member account through its door role', { timeout: 120_000 }, () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  }, 300_000);

  it('a member node’s pause image is probed and repaired with the member’s documents, as the member’s door role, the session naming the incident', async () => {
    const door = await throughDoor(w, repairInput(A));
    expect(door.last).toMatchObject({ outcome: 'done', kind: 'repair-pause-image' });
    expect(door.last?.command?.status).toBe('Success');
    // The probe the gate asked for, then the repair: on A's node, with A's documents, nothing at the hub.
    expect(w.door.commands).toEqual([
      { where: { account: A, region: REGION }, document: `pod-doctor-${FLEET.name}-probeNode`, instanceId: NODE_ID },
      {
        where: { account: A, region: REGION },
        document: `pod-doctor-${FLEET.name}-repairPauseImage`,
        instanceId: NODE_ID,
      },
    ]);
    expect(w.hubCommands.commands).toEqual([]);
    // STS: the door role of A in eu-west-1, the session named for the incident and action, the door's source identity.
    expect(w.door.sessions.map((s) => [s.roleArn, s.sessionName, s.sourceIdentity])).toEqual([
      [
        spokeDoorRoleArn('aws', FLEET.name, A, REGION),
        `${INCIDENT.id}.repair-pause-image`,
        `pod-doctor-door-${INCIDENT.id}`,
      ],
    ]);
    const sts = w.f.world.decisions.filter((d) => d.action.startsWith('sts:'));
    expect(sts.map((d) => [d.principal, d.action, d.allowed])).toEqual([
      [w.doorRole, 'sts:AssumeRole', true],
      [w.doorRole, 'sts:SetSourceIdentity', true],
    ]);
    // Every member-side call was the session's, authorised by the member template's grants.
    const member = w.f.world.decisions.filter((d) => d.principal.includes(':assumed-role/'));
    expect(new Set(member.map((d) => d.action))).toEqual(
      new Set([
        'ec2:DescribeInstances',
        'iam:GetInstanceProfile',
        'eks:DescribeNodegroup',
        'ssm:SendCommand',
        'ssm:GetCommandInvocation',
      ]),
    );
    expect(member.every((d) => d.principal.endsWith(`/${INCIDENT.id}.repair-pause-image`))).toBe(true);
    expect(member.every((d) => d.allowed)).toBe(true);
  });

  it('an approval given for account B does not cover the same node and action in account C: refused, nothing run', async () => {
    const inC = repairInput(C, {
      disposition: 'approve',
      approval: { approved: true, reason: 'approved', slot: 'act' },
    });
    const request = (account: string): ActionRequest => ({
      slot: 'act',
      action: inC.door.call.request.action,
      disposition: 'approve',
      description: inC.door.call.request.description,
      incident: { ...inC.incident, key: inC.incident.key.replace(C, account), cluster: clusterOf(account) },
      execution: inC.execution,
      scope: { region: REGION, account },
    });
    // The grant the approval page writes for B's request (the same instance id exists in both accounts).
    await w.f.table.client.send(
      new PutCommand({
        TableName: w.deps.config.tableName,
        Item: { ...grantKey(requestDigest(request(B))), approvedAt: NOW },
      }),
    );
    expect(requestDigest(request(B))).not.toBe(requestDigest(request(C)));
    const door = await throughDoor(w, inC);
    expect(door.last).toMatchObject({ outcome: 'refused', code: 'approval-mismatch' });
    expect(w.door.commands.filter((c) => c.document.endsWith('repairPauseImage'))).toEqual([]);
  });

  it('an account that left the organization mid-incident: its role refuses the door, the door refuses, nothing runs there', async () => {
    w.f.world.organization.remove(B);
    const door = await throughDoor(w, repairInput(B));
    expect(door.last).toMatchObject({ outcome: 'refused', code: 'reach' });
    expect(door.last?.reason).toMatch(
      new RegExp(`could not assume pod-doctor's role in account ${B} in ${REGION}: AccessDenied.*nothing done`),
    );
    expect(w.door.commands).toEqual([]);
  });

  it('a member Region the hub cannot reach: the door step fails with the timeout (the workflow reports it), nothing is run', async () => {
    w.f.world.unreachable.add('us-east-1');
    await expect(throughDoor(w, repairInput(A, { region: 'us-east-1' }))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(w.door.commands).toEqual([]);
  });
});

describe('who may act in a member account: the door role’s trust and grants, as the templates say', {
  timeout: 120_000,
}, () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  }, 300_000);

  const doorRoleOf = (account: string) => spokeDoorRoleArn('aws', FLEET.name, account, REGION);

  it('the door role refuses the hub’s door without the external id, and any hub role but the door', async () => {
    await expect(
      w.f.world.assumeRole(w.doorRole, doorRoleOf(A), { sessionName: 'x', region: HUB.region }),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(
      w.f.world.assumeRole(w.doorRole, doorRoleOf(A), {
        externalId: 'other-fleet',
        sessionName: 'x',
        region: HUB.region,
      }),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    for (const handler of ['check-network', 'fleet-intake', 'summarize'])
      await expect(
        w.f.world.assumeRole(fnOf(w.f.hub, handler).role, doorRoleOf(A), {
          externalId: FLEET.name,
          sessionName: 'x',
          region: HUB.region,
        }),
      ).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('only the door may set a source identity, and only the door’s', async () => {
    await expect(
      w.f.world.assumeRole(w.doorRole, doorRoleOf(A), {
        externalId: FLEET.name,
        sessionName: 'x',
        region: HUB.region,
        sourceIdentity: 'someone-else',
      }),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    // The checks' role reads through the spoke role; it may not set the door's source identity there.
    await expect(
      w.f.world.assumeRole(fnOf(w.f.hub, 'check-network').role, spokeRoleArn('aws', FLEET.name, A, REGION), {
        externalId: FLEET.name,
        sessionName: 'x',
        region: HUB.region,
        sourceIdentity: `pod-doctor-door-${INCIDENT.id}`,
      }),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('the read role the checks assume runs no command; the door role runs only pod-doctor’s documents on the cluster’s nodes', async () => {
    const read = await w.f.world.assumeRole(
      fnOf(w.f.hub, 'check-network').role,
      spokeRoleArn('aws', FLEET.name, A, REGION),
      { externalId: FLEET.name, sessionName: 'x', region: HUB.region },
    );
    const document = (name: string) => `arn:aws:ssm:${REGION}:${A}:document/${name}`;
    await expect(
      w.f.world.authorizeAs(read, {
        action: 'ssm:SendCommand',
        resource: document(`pod-doctor-${FLEET.name}-probeNode`),
      }),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const act = await w.f.world.assumeRole(w.doorRole, doorRoleOf(A), {
      externalId: FLEET.name,
      sessionName: 'x',
      region: HUB.region,
      sourceIdentity: `pod-doctor-door-${INCIDENT.id}`,
    });
    await w.f.world.authorizeAs(act, {
      action: 'ssm:SendCommand',
      resource: document(`pod-doctor-${FLEET.name}-repairPauseImage`),
    });
    await expect(
      w.f.world.authorizeAs(act, { action: 'ssm:SendCommand', resource: document('AWS-RunShellScript') }),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const instance = `arn:aws:ec2:${REGION}:${A}:instance/${NODE_ID}`;
    await w.f.world.authorizeAs(act, {
      action: 'ssm:SendCommand',
      resource: instance,
      context: { 'ssm:resourceTag/eks:cluster-name': clusterOf(A) },
    });
    await expect(
      w.f.world.authorizeAs(act, {
        action: 'ssm:SendCommand',
        resource: instance,
        context: { 'ssm:resourceTag/eks:cluster-name': 'someone-elses-cluster' },
      }),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});

describe('a member incident’s readers read in the member’s account through its read role', { timeout: 120_000 }, () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  }, 300_000);

  /** The readers of `role` (a hub check function's), as the hub's handlers build them for `purpose`. */
  const readers = (role: string, purpose: string) => {
    const sts = localSts(w.f.world, role, HUB.region, () => NOW);
    const own = w.deps.aws;
    const reads = memberReads(own, {
      fleet: { name: FLEET.name, hubAccount: HUB.account, partition: 'aws' },
      assume: sts.assume,
      purpose,
      make: memberReadClients(w.f.world, w.members, sts),
    });
    return { sts, reads };
  };
  const site = (account: string) => ({ account, region: REGION, incidentId: INCIDENT.id });

  it('the node is resolved in the member’s EC2 and the network checks read there, each session named for the incident and reader', async () => {
    const resolver = readers(fnOf(w.f.hub, 'resolve-node').role, 'resolve-node');
    const node = await asRole(fnOf(w.f.hub, 'resolve-node').role, async () => {
      const c = await resolver.reads(site(A));
      // The member's node is tagged as the member's cluster: the hub's own account has no such node.
      return resolveNode(c.ec2, c.iam, NODE_ID, clusterOf(A));
    });
    expect(node).toMatchObject({ instanceId: NODE_ID, privateDnsName: NODE_DNS });
    const checks = fnOf(w.f.hub, 'check-network').role;
    const network = readers(checks, 'check-network');
    const run = checkHandler('network', runNetworkGroup, network.reads);
    const out = await asRole(checks, () =>
      run({ node, cluster: clusterOf(A), region: REGION, account: A, incidentId: INCIDENT.id, class: 'ip-exhaustion' }),
    );
    expect(out.findings.length).toBeGreaterThan(0);
    expect(out.findings.filter((f) => f.status === 'error')).toEqual([]);
    expect([resolver.sts.last(), network.sts.last()].map((x) => [x?.roleArn, x?.sessionName])).toEqual([
      [spokeRoleArn('aws', FLEET.name, A, REGION), `${INCIDENT.id}.resolve-node`],
      [spokeRoleArn('aws', FLEET.name, A, REGION), `${INCIDENT.id}.check-network`],
    ]);
    const member = w.f.world.decisions.filter((d) => d.principal.includes(':assumed-role/'));
    expect(member.length).toBeGreaterThan(2);
    expect(member.every((d) => d.allowed)).toBe(true);
  });

  it('the hub’s own incidents read with the function’s own clients; an account that left the organization is not read', async () => {
    const { reads } = readers(fnOf(w.f.hub, 'check-network').role, 'check-network');
    expect(await reads({ region: REGION })).toBe(w.deps.aws);
    expect(await reads({ account: HUB.account, region: REGION })).toBe(w.deps.aws);
    w.f.world.organization.remove(C);
    await expect(asRole(fnOf(w.f.hub, 'check-network').role, () => reads(site(C)))).rejects.toBeInstanceOf(
      SpokeUnreachableError,
    );
  });
});
