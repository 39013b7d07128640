import { beforeAll, describe, expect, it } from 'vitest';
import { SPOKE_DETAIL_TYPE, SPOKE_SOURCE, spokeRoleArn } from '../../lambdas/core/fleet/fleet.js';
import { matchesEventPattern } from '../../local/event-pattern.js';
import { type Deployment, FleetWorld, LocalOrganization } from '../../local/fleet-world.js';
import { arnOf, idsOfType } from '../../local/template.js';
import { FLEET, fleetTemplates } from '../support/fleet-templates.js';

// Cross-account trust decided from the synthesized templates: STS from the spoke role's trust policy
// and the caller's grants, EventBridge from the rule role's grant and the hub bus's policy.

const HUB = FLEET.hub;
const [A, B, C] = FLEET.members.map((m) => m.account);
const stack = (account: string, region: string) => `PodDoctorSpoke-${account}-${region}`;

let world: FleetWorld;
const intakeInvoked: unknown[] = [];
let hub: Deployment;
const spokes = new Map<string, Deployment>();

/** The logical id of the function whose handler is `handler` in `d`. */
function functionOf(d: Deployment, handler: string): string {
  const id = idsOfType(d.template, 'AWS::Lambda::Function').find(
    (x) => (d.template.raw[x] as { Metadata?: { PodDoctorHandler?: string } }).Metadata?.PodDoctorHandler === handler,
  );
  if (!id) throw new Error(`no ${handler} function`);
  return id;
}
const roleOfHandler = (d: Deployment, handler: string) =>
  String(d.template.Resources[functionOf(d, handler)].Properties?.Role);
const functionArnOf = (d: Deployment, handler: string) => arnOf(d.template, functionOf(d, handler));

const fresh = () => {
  const templates = fleetTemplates();
  const org = new LocalOrganization(FLEET.organizationId, [HUB.account, A, B, C]);
  world = new FleetWorld(org, matchesEventPattern);
  hub = world.deploy(templates.PodDoctorHub, { ...HUB, stackName: 'PodDoctorHub' });
  // The hub bus's rule invokes the intake: here it only records (test/workflow/fleet.test.ts runs it).
  world.onFunction(functionArnOf(hub, 'fleet-intake'), async (e) => void intakeInvoked.push(e));
  for (const m of FLEET.members)
    for (const region of m.regions)
      spokes.set(
        `${m.account}/${region}`,
        world.deploy(templates[stack(m.account, region)], {
          account: m.account,
          region,
          stackName: stack(m.account, region),
        }),
      );
};

const spokeRole = (account: string, region: string) => spokeRoleArn('aws', FLEET.name, account, region);
/** `externalId` null: the request carries none. */
const assume = (caller: string, account: string, region: string, externalId: string | null = FLEET.name) =>
  world.assumeRole(caller, spokeRole(account, region), {
    externalId: externalId ?? undefined,
    sessionName: 'pod-doctor',
    region: HUB.region,
  });

beforeAll(() => fresh(), 300_000);

describe('the spoke role trusts the hub’s functions only', () => {
  it('a hub check function assumes the spoke role of each member account and Region, and reads there', async () => {
    const checks = roleOfHandler(hub, 'check-network');
    expect(checks).toMatch(new RegExp(`^arn:aws:iam::${HUB.account}:role/pod-doctor/eks-fleet/`));
    for (const m of FLEET.members)
      for (const region of m.regions) {
        const s = await assume(checks, m.account, region);
        expect(s.assumedRoleArn).toBe(
          `arn:aws:sts::${m.account}:assumed-role/pod-doctor-eks-fleet-spoke-${region}/pod-doctor`,
        );
        await expect(world.authorizeAs(s, { action: 'ec2:DescribeSubnets', resource: '*' })).resolves.toBeUndefined();
      }
  });

  it('the spoke role reads; it cannot run commands or change anything', async () => {
    const s = await assume(roleOfHandler(hub, 'check-network'), A, 'eu-west-1');
    await expect(
      world.authorizeAs(s, { action: 'ssm:SendCommand', resource: `arn:aws:ec2:eu-west-1:${A}:instance/i-0abc` }),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(
      world.authorizeAs(s, { action: 'iam:AttachRolePolicy', resource: `arn:aws:iam::${A}:role/x` }),
    ).rejects.toMatchObject({
      name: 'AccessDenied',
    });
  });

  it('without the fleet’s ExternalId, or with another, STS refuses', async () => {
    const checks = roleOfHandler(hub, 'check-network');
    await expect(assume(checks, A, 'eu-west-1', null)).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(assume(checks, A, 'eu-west-1', 'other-fleet')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('a hub role outside the fleet’s path (the state machine’s) is refused by the trust policy', async () => {
    const [sm] = idsOfType(hub.template, 'AWS::StepFunctions::StateMachine');
    const smRole = String(hub.template.Resources[sm].Properties?.RoleArn);
    expect(smRole).not.toContain('/pod-doctor/eks-fleet/');
    await expect(assume(smRole, A, 'eu-west-1')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('a spoke’s own role cannot assume another member’s spoke role (one spoke never reaches another)', async () => {
    const ingestRole = roleOfHandler(spokes.get(`${A}/eu-west-1`) as Deployment, 'spoke-ingest');
    await expect(assume(ingestRole, B, 'eu-west-1')).rejects.toMatchObject({ name: 'AccessDenied' });
    // Not even with the ExternalId and in its own account: the trust names the hub's path.
    await expect(assume(ingestRole, A, 'eu-west-1')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('a hub function not granted sts:AssumeRole (the summarizer) is refused by its own policies', async () => {
    const summarize = roleOfHandler(hub, 'summarize');
    expect(summarize).toContain('/pod-doctor/eks-fleet/');
    await expect(assume(summarize, A, 'eu-west-1')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('an account outside the hub’s member list has no spoke role to assume (the grant names members only)', async () => {
    const checks = roleOfHandler(hub, 'check-network');
    await expect(
      world.assumeRole(checks, spokeRoleArn('aws', FLEET.name, '555555555555', 'eu-west-1'), {
        externalId: FLEET.name,
        sessionName: 'pod-doctor',
        region: HUB.region,
      }),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('once the hub’s account is out of the organization, aws:PrincipalOrgID no longer matches', async () => {
    world.organization.remove(HUB.account);
    try {
      await expect(assume(roleOfHandler(hub, 'check-network'), A, 'eu-west-1')).rejects.toMatchObject({
        name: 'AccessDenied',
      });
    } finally {
      fresh();
    }
  });
});

describe('the hub’s bus admits the organization only', () => {
  const put = (account: string, region: string, detail: unknown) =>
    world.putEvents(
      roleOfHandler(spokes.get(`${account}/${region}`) as Deployment, 'spoke-ingest'),
      { account, region, stackName: stack(account, region) },
      {
        source: SPOKE_SOURCE,
        detailType: SPOKE_DETAIL_TYPE,
        detail: JSON.stringify(detail),
      },
    );
  const hubBus = () =>
    `arn:aws:events:${HUB.region}:${HUB.account}:event-bus/${String(hub.template.Resources[idsOfType(hub.template, 'AWS::Events::EventBus')[0]].Properties?.Name)}`;

  it('a spoke’s candidates reach the hub’s bus through the spoke rule’s role, stamped with the sender’s account and Region', async () => {
    for (const [account, region] of [
      [A, 'eu-west-1'],
      [B, 'us-east-1'],
      [C, 'us-east-1'],
    ] as const) {
      await put(account, region, { account, region, candidates: [], rejects: [], received: 1 });
      const last = world.received.get(hubBus())?.at(-1);
      expect(last).toMatchObject({ account, region, source: SPOKE_SOURCE });
    }
    expect(world.refused).toEqual([]);
    expect(intakeInvoked).toHaveLength(3);
    const crossAccount = world.decisions.filter((d) => d.action === 'events:PutEvents');
    expect(crossAccount.length).toBeGreaterThanOrEqual(3);
    expect(crossAccount.every((d) => d.allowed)).toBe(true);
  });

  it('a spoke cannot put another source on its bus (its grant is for pod-doctor.spoke only)', async () => {
    const role = roleOfHandler(spokes.get(`${A}/eu-west-1`) as Deployment, 'spoke-ingest');
    await expect(
      world.putEvents(
        role,
        { account: A, region: 'eu-west-1', stackName: stack(A, 'eu-west-1') },
        { source: 'my.app', detailType: 'x', detail: '{}' },
      ),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });

  it('an account that left the organization is refused by the bus policy, and the refusal is recorded', async () => {
    world.organization.remove(B);
    try {
      const before = world.received.get(hubBus())?.length ?? 0;
      await put(B, 'eu-west-1', { account: B, region: 'eu-west-1', candidates: [], rejects: [], received: 1 });
      expect(world.received.get(hubBus())?.length ?? 0).toBe(before);
      expect(world.refused.at(-1)).toMatchObject({
        from: `${B}/eu-west-1`,
        why: expect.stringMatching(/resource-based policy/),
      });
    } finally {
      fresh();
    }
  });

  it('a Region the spoke cannot reach: the forward is refused and recorded, nothing delivered', async () => {
    world.unreachable.add(HUB.region);
    try {
      await put(A, 'us-east-1', { account: A, region: 'us-east-1', candidates: [], rejects: [], received: 1 });
      expect(world.refused.at(-1)).toMatchObject({ why: `the Region ${HUB.region} cannot be reached` });
    } finally {
      fresh();
    }
  });
});

describe('the fleet view', () => {
  it('the hub’s dashboard shows incidents, refused events and records read per member account', () => {
    const [id] = idsOfType(hub.template, 'AWS::CloudWatch::Dashboard');
    const body = String(hub.template.Resources[id].Properties?.DashboardBody);
    for (const metric of ['FleetIncidentsOpened', 'FleetEventsRefused', 'FleetRecordsReceived'])
      expect(body).toContain(
        `SEARCH('{PodDoctor,account,service} MetricName=\\"${metric}\\" service=\\"pod-doctor\\"', 'Sum', 3600)`,
      );
  });
});
