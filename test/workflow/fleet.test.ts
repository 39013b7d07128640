import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { type IntakeOutcome, intake } from '../../lambdas/aws/fleet/fleet-intake.js';
import { forwardSignals } from '../../lambdas/aws/fleet/spoke-forwarder.js';
import { openIncidentKey } from '../../lambdas/core/contract/incident-table.js';
import { type FleetMember, fleetEventSchema, spokeRoleArn } from '../../lambdas/core/fleet/fleet.js';
import type { LocalTable } from '../../local/dynamo.js';
import { matchesEventPattern } from '../../local/event-pattern.js';
import { type Deployment, FleetWorld, LocalOrganization } from '../../local/fleet-world.js';
import { asRole } from '../../local/guard.js';
import { localIngestDeps } from '../../local/ingest-runtime.js';
import { freshIncidentTable } from '../../local/local-workflow.js';
import { arnOf, idsOfType } from '../../local/template.js';
import { corpus, subscriptionEvent } from '../support/fixtures.js';
import { FLEET, fleetTemplates } from '../support/fleet-templates.js';

// A hub and spokes in three member accounts and two Regions, end to end: real log lines into each
// spoke's ingest, PutEvents and the forwarding rule decided by IAM from the templates, the hub's intake
// (its role, dynalite, StartExecution with Step Functions' limits), then the hub's check role in the
// member's account and Region through STS. Every cross-account call is one the templates authorise.

const HUB = FLEET.hub;
const NOW = Date.parse('2026-11-29T10:05:00Z');
const REGIONS = ['eu-west-1', 'us-east-1'];
const stackName = (account: string, region: string) => `PodDoctorSpoke-${account}-${region}`;

const fnOf = (d: Deployment, handler: string) => {
  const id = idsOfType(d.template, 'AWS::Lambda::Function').find(
    (x) => (d.template.raw[x] as { Metadata?: { PodDoctorHandler?: string } }).Metadata?.PodDoctorHandler === handler,
  );
  if (!id) throw new Error(`no ${handler}`);
  const p = d.template.Resources[id].Properties ?? {};
  return {
    arn: arnOf(d.template, id),
    role: String(p.Role),
    env: (p.Environment as { Variables: Record<string, string> }).Variables,
  };
};

/** Each cluster's real failure line (corpus.jsonl names its public source). */
const line = (cls: string) => (corpus().find((c) => c.class === cls) as { line: string }).line;

interface Fleet {
  world: FleetWorld;
  hub: Deployment;
  spokes: Map<string, Deployment>;
  outcomes: IntakeOutcome[];
  hubDeps: ReturnType<typeof localIngestDeps>;
  table: LocalTable;
}

/** The world; the hub acts in `members` (its configuration) and keeps incidents in `table` (a redeploy keeps it). */
async function fleet(members: readonly FleetMember[] = FLEET.members, existing?: LocalTable): Promise<Fleet> {
  const templates = fleetTemplates();
  const world = new FleetWorld(
    new LocalOrganization(FLEET.organizationId, [HUB.account, ...FLEET.members.map((m) => m.account)]),
    matchesEventPattern,
  );
  const hub = world.deploy(templates.PodDoctorHub, { ...HUB, stackName: 'PodDoctorHub' });
  const spokes = new Map<string, Deployment>();
  for (const m of FLEET.members)
    for (const region of m.regions)
      spokes.set(
        `${m.account}/${region}`,
        world.deploy(templates[stackName(m.account, region)], {
          account: m.account,
          region,
          stackName: stackName(m.account, region),
        }),
      );
  const table = existing ?? (await freshIncidentTable(hub.template));
  const hubDeps = localIngestDeps(hub.template, table, {
    handler: 'fleet-intake',
    config: { logGroupClusters: {}, accountScope: 'account' },
    now: () => NOW,
  });
  const outcomes: IntakeOutcome[] = [];
  const intakeFn = fnOf(hub, 'fleet-intake');
  expect(JSON.parse(intakeFn.env.FLEET_MEMBERS)).toEqual(FLEET.members);
  world.onFunction(intakeFn.arn, async (event) => {
    outcomes.push(
      await asRole(hubDeps.role, () => intake(fleetEventSchema.parse(event), event.id, { ...hubDeps.deps, members })),
    );
  });
  return { world, hub, spokes, outcomes, hubDeps, table };
}

/** The open-incident row of `incidentKey`, read back from the hub's table. */
async function openRow(f: Fleet, incidentKey: string): Promise<Record<string, unknown> | undefined> {
  const key = openIncidentKey(incidentKey);
  return (await f.table.client.send(new GetCommand({ TableName: f.hubDeps.env.INCIDENT_TABLE_NAME, Key: key }))).Item;
}

/** One subscription delivery of `lines` to the spoke ingest of `account` in `region`, as its role. */
async function spokeReads(f: Fleet, account: string, region: string, cluster: string, lines: string[], claim?: string) {
  const d = f.spokes.get(`${account}/${region}`) as Deployment;
  const ingest = fnOf(d, 'spoke-ingest');
  const logGroup = `/aws/containerinsights/${cluster}/dataplane`;
  expect(JSON.parse(ingest.env.LOG_GROUP_CLUSTERS)).toEqual({ [logGroup]: cluster });
  return forwardSignals(subscriptionEvent(lines, { logGroup }), {
    bus: { put: async (entry) => void (await f.world.putEvents(ingest.role, d.env, entry)) },
    config: {
      logGroupClusters: JSON.parse(ingest.env.LOG_GROUP_CLUSTERS),
      accountScope: 'account',
      trustedSandboxImages: [],
    },
    now: () => NOW,
    // What the function reads from its environment: a forged spoke would claim another account here.
    account: claim ?? ingest.env.SPOKE_ACCOUNT,
    region,
  });
}

const clusterOf = (account: string) => (FLEET.clusters[account] as { name: string }[])[0].name;

describe('a hub and spokes in three accounts and two Regions', { timeout: 120_000 }, () => {
  let f: Fleet;
  beforeAll(async () => {
    f = await fleet();
  }, 300_000);

  it('each spoke’s failure lines become one incident in the hub per account, Region and cluster, each workflow told where', async () => {
    for (const m of FLEET.members)
      for (const region of REGIONS)
        await spokeReads(f, m.account, region, clusterOf(m.account), [line('sandbox-image'), line('sandbox-image')]);
    const admitted = f.outcomes.filter((o) => o.admitted);
    expect(admitted).toHaveLength(6);
    expect(new Set(admitted.flatMap((o) => (o.admitted ? o.incidentsOpened : []))).size).toBe(6);
    // payments-prod exists in two accounts: two incidents, never one.
    const started = f.hubDeps.started as { cluster: string; account: string; region: string; incidentKey: string }[];
    expect(started.map((s) => `${s.account}/${s.region}/${s.cluster}`).sort()).toEqual(
      FLEET.members.flatMap((m) => REGIONS.map((r) => `${m.account}/${r}/${clusterOf(m.account)}`)).sort(),
    );
    for (const s of started) expect(s.incidentKey.startsWith(`${s.account}|${s.region}|`)).toBe(true);
    // Every cross-account call was decided, and allowed, by a grant and a resource policy.
    const cross = f.world.decisions.filter((d) => d.action === 'events:PutEvents');
    expect(cross).toHaveLength(6);
    expect(cross.every((d) => d.allowed)).toBe(true);
    expect(f.hubDeps.authz.decisions.every((d) => d.allowed)).toBe(true);
  });

  it('the hub’s check role reads in the incident’s own account and Region through STS, and nowhere it was not told', async () => {
    const checks = fnOf(f.hub, 'check-network').role;
    for (const s of f.hubDeps.started as { account: string; region: string }[]) {
      const session = await f.world.assumeRole(checks, spokeRoleArn('aws', FLEET.name, s.account, s.region), {
        externalId: FLEET.name,
        sessionName: 'pod-doctor',
        region: HUB.region,
      });
      await f.world.authorizeAs(session, { action: 'ec2:DescribeSubnets', resource: '*' });
    }
    const sts = f.world.decisions.filter((d) => d.action === 'sts:AssumeRole');
    expect(sts).toHaveLength(6);
    expect(sts.every((d) => d.allowed)).toBe(true);
  });
});

describe('bad input across accounts: refused or reported, nothing acted on blind, nothing lost', {
  timeout: 120_000,
}, () => {
  const [A, B, C] = FLEET.members.map((m) => m.account);

  it('a spoke’s batch naming another account is refused by the hub and kept with why; no incident, no workflow', async () => {
    const f = await fleet();
    await spokeReads(f, A, 'eu-west-1', clusterOf(A), [line('sandbox-image')], B);
    expect(f.outcomes).toEqual([
      expect.objectContaining({
        admitted: false,
        account: A,
        reason: `batch claims ${B} in eu-west-1 but was sent by ${A} in eu-west-1`,
      }),
    ]);
    expect(f.hubDeps.startCalls()).toBe(0);
    const kept = [...f.hubDeps.objects.entries()].filter(([k]) => k.startsWith('rejected/'));
    expect(kept).toHaveLength(1);
    expect(kept[0][1]).toContain('refused: batch claims');
  });

  it('an account removed from the hub’s members mid-incident: its next batch is refused and kept, its open incident stays recorded', async () => {
    const f = await fleet();
    await spokeReads(f, C, 'us-east-1', clusterOf(C), [line('sandbox-image')]);
    const [opened] = f.hubDeps.started as { incidentKey: string }[];
    // The hub redeployed without C: same table, a members list without it.
    const removed = await fleet(
      FLEET.members.filter((m) => m.account !== C),
      f.table,
    );
    await spokeReads(removed, C, 'us-east-1', clusterOf(C), [line('sandbox-image')]);
    expect(removed.outcomes).toEqual([
      expect.objectContaining({ admitted: false, reason: `account ${C} in us-east-1 is not a member the hub acts in` }),
    ]);
    expect(removed.hubDeps.startCalls()).toBe(0);
    expect([...removed.hubDeps.objects.keys()].filter((k) => k.startsWith('rejected/'))).toHaveLength(1);
    expect(await openRow(f, opened.incidentKey)).toMatchObject({ account: C, region: 'us-east-1', occurrences: 1 });
  });

  it('an account that left the organization: the bus refuses its events before the hub sees them; the refusal is recorded', async () => {
    const f = await fleet();
    f.world.organization.remove(B);
    await spokeReads(f, B, 'eu-west-1', clusterOf(B), [line('sandbox-image')]);
    expect(f.outcomes).toEqual([]);
    expect(f.world.refused).toEqual([expect.objectContaining({ from: `${B}/eu-west-1` })]);
  });

  it('a spoke deleted mid-incident: the hub cannot assume its role and says so (AccessDenied), nothing is acted on', async () => {
    const f = await fleet();
    await spokeReads(f, A, 'us-east-1', clusterOf(A), [line('sandbox-image')]);
    f.world.undeploy(f.spokes.get(`${A}/us-east-1`) as Deployment);
    await expect(
      f.world.assumeRole(fnOf(f.hub, 'check-network').role, spokeRoleArn('aws', FLEET.name, A, 'us-east-1'), {
        externalId: FLEET.name,
        sessionName: 'pod-doctor',
        region: HUB.region,
      }),
    ).rejects.toMatchObject({ name: 'AccessDenied', message: expect.stringContaining('the role does not exist') });
  });

  it('a Region the hub cannot reach: the call in it times out (TimeoutError, reported), nothing is read or acted on there', async () => {
    const f = await fleet();
    const checks = fnOf(f.hub, 'check-network').role;
    const session = await f.world.assumeRole(checks, spokeRoleArn('aws', FLEET.name, A, 'us-east-1'), {
      externalId: FLEET.name,
      sessionName: 'pod-doctor',
      region: HUB.region,
    });
    f.world.unreachable.add('us-east-1');
    await expect(
      f.world.authorizeAs(session, {
        action: 'ec2:DescribeSubnets',
        resource: `arn:aws:ec2:us-east-1:${A}:subnet/subnet-0abc`,
      }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});

// The hub table read back (what the fleet view groups by): the row of an incident names its account and Region.
describe('the incident row names the member account and Region', { timeout: 120_000 }, () => {
  it('account and region are on the open incident row', async () => {
    const f = await fleet();
    const [, B] = FLEET.members.map((m) => m.account);
    await spokeReads(f, B, 'us-east-1', clusterOf(B), [line('sandbox-image')]);
    const [s] = f.hubDeps.started as { incidentKey: string }[];
    expect(await openRow(f, s.incidentKey)).toMatchObject({ account: B, region: 'us-east-1', cluster: clusterOf(B) });
  });
});
