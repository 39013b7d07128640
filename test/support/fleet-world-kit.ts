import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { type IntakeOutcome, intake } from '../../lambdas/aws/fleet/fleet-intake.js';
import { forwardSignals } from '../../lambdas/aws/fleet/spoke-forwarder.js';
import { openIncidentKey } from '../../lambdas/core/contract/incident-table.js';
import { type FleetMember, fleetEventSchema } from '../../lambdas/core/fleet/fleet.js';
import type { LocalTable } from '../../local/dynamo.js';
import { matchesEventPattern } from '../../local/event-pattern.js';
import { type Deployment, FleetWorld, LocalOrganization } from '../../local/fleet-world.js';
import { asRole } from '../../local/guard.js';
import { localIngestDeps } from '../../local/ingest-runtime.js';
import { freshIncidentTable } from '../../local/local-workflow.js';
import { arnOf, idsOfType } from '../../local/template.js';
import { corpus, subscriptionEvent } from './fixtures.js';
import { FLEET, fleetTemplates } from './fleet-templates.js';

// A hub and spokes in three member accounts and two Regions, deployed in one local world from the
// fleet example's synthesized templates: what the fleet tests share.

export const HUB = FLEET.hub;
export const NOW = Date.parse('2026-11-29T10:05:00Z');
export const REGIONS = ['eu-west-1', 'us-east-1'];
export const stackName = (account: string, region: string) => `PodDoctorSpoke-${account}-${region}`;

export const fnOf = (d: Deployment, handler: string) => {
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
export const line = (cls: string) => (corpus().find((c) => c.class === cls) as { line: string }).line;

export interface Fleet {
  world: FleetWorld;
  hub: Deployment;
  spokes: Map<string, Deployment>;
  outcomes: IntakeOutcome[];
  hubDeps: ReturnType<typeof localIngestDeps>;
  table: LocalTable;
}

/** The world; the hub acts in `members` (its configuration) and keeps incidents in `table` (a redeploy keeps it). */
export async function fleet(members: readonly FleetMember[] = FLEET.members, existing?: LocalTable): Promise<Fleet> {
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
export async function openRow(f: Fleet, incidentKey: string): Promise<Record<string, unknown> | undefined> {
  const key = openIncidentKey(incidentKey);
  return (await f.table.client.send(new GetCommand({ TableName: f.hubDeps.env.INCIDENT_TABLE_NAME, Key: key }))).Item;
}

/** One subscription delivery of `lines` to the spoke ingest of `account` in `region`, as its role. */
export async function spokeReads(
  f: Fleet,
  account: string,
  region: string,
  cluster: string,
  lines: string[],
  claim?: string,
) {
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

export const clusterOf = (account: string) => (FLEET.clusters[account] as { name: string }[])[0].name;
