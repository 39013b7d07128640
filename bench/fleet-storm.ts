/**
 * Issue 26: a fleet storm through the hub. 200 clusters in 20 member accounts × 3 Regions each see the
 * storm's line mix (bench/storm.ts: 4 in 5 lines pause-image 401s, 1 in 5 missing images, one minute);
 * each spoke's ingest reads its clusters' deliveries and puts its candidates on its bus (its role),
 * the forwarding rule sends them to the hub's bus (rule role and bus policy, decided by IAM), the
 * hub's intake opens the incidents (its role, dynalite, Step Functions' StartExecution rules).
 * Reported: incidents, StartExecution calls, DynamoDB writes, cross-account events, and a cost per
 * cluster-month at public prices for one such storm per cluster per day.
 */
import { type IntakeOutcome, intake } from '../lambdas/aws/fleet/fleet-intake.js';
import { forwardSignals } from '../lambdas/aws/fleet/spoke-forwarder.js';
import { fleetEventSchema } from '../lambdas/core/fleet/fleet.js';
import { healthyAccount } from '../local/account-snapshot.js';
import { matchesEventPattern } from '../local/event-pattern.js';
import { type Deployment, FleetWorld, LocalOrganization } from '../local/fleet-world.js';
import { asRole } from '../local/guard.js';
import { localIngestDeps } from '../local/ingest-runtime.js';
import { freshIncidentTable, runWorkflow, synthesizedDefinition } from '../local/local-workflow.js';
import { simulatedPauseNode } from '../local/node-adapters.js';
import { arnOf, idsOfType } from '../local/template.js';
import { FLEET, fleetTemplates } from '../test/support/fleet-templates.js';
import { incident } from '../test/workflow/support.js';
import { stormDeliveries } from './storm.js';

const ACCOUNTS = 20;
const REGIONS = ['eu-west-1', 'us-east-1', 'ap-southeast-2'];
const CLUSTERS = 200;
const LINES_PER_CLUSTER = 250;
const NOW = Date.parse('2026-11-30T08:01:01Z');

// Public prices (us-east-1, Nov 2026): EventBridge $1.00 per 1M events put or delivered cross-account;
// Lambda arm64 $0.20 per 1M requests, $0.0000133334 per GB-second; DynamoDB on-demand $0.625 per 1M
// write request units; Step Functions Standard $0.025 per 1,000 transitions.
const EVENT = 1 / 1_000_000;
const LAMBDA_REQUEST = 0.2 / 1_000_000;
const LAMBDA_GB_SECOND = 0.0000133334;
const WRITE = 0.625 / 1_000_000;
const TRANSITION = 0.025 / 1000;
const ASSUMED_LAMBDA_MS = 300;
const STORMS_PER_MONTH = 30;

const account = (i: number) => String(200_000_000_000 + i * 1_111);
const fnOf = (d: Deployment, handler: string) => {
  const id = idsOfType(d.template, 'AWS::Lambda::Function').find(
    (x) => (d.template.raw[x] as { Metadata?: { PodDoctorHandler?: string } }).Metadata?.PodDoctorHandler === handler,
  );
  if (!id) throw new Error(`no ${handler}`);
  return { arn: arnOf(d.template, id), role: String(d.template.Resources[id].Properties?.Role) };
};

/** 20 accounts × 3 Regions, 200 clusters spread over the 60 spokes. */
function settings() {
  const members = Array.from({ length: ACCOUNTS }, (_, i) => ({ account: account(i), regions: REGIONS }));
  const clusters = Array.from({ length: CLUSTERS }, (_, c) => ({
    account: account(c % ACCOUNTS),
    region: REGIONS[Math.floor(c / ACCOUNTS) % REGIONS.length],
    name: `team-${c}`,
  }));
  return { members, clusters };
}

interface FleetStormFigures {
  readonly lines: number;
  readonly spokeInvocations: number;
  readonly crossAccountEvents: number;
  readonly refused: number;
  readonly incidents: number;
  readonly startCalls: number;
  readonly executions: number;
  readonly dynamoWrites: number;
  readonly ms: number;
}

async function runFleetStorm(): Promise<FleetStormFigures> {
  const { members, clusters } = settings();
  const templates = fleetTemplates({ ...FLEET, members, clusters: {} });
  const org = new LocalOrganization(FLEET.organizationId, [FLEET.hub.account, ...members.map((m) => m.account)]);
  const world = new FleetWorld(org, matchesEventPattern);
  const hub = world.deploy(templates.PodDoctorHub, { ...FLEET.hub, stackName: 'PodDoctorHub' });
  const spokes = new Map<string, Deployment>();
  for (const m of members)
    for (const region of m.regions) {
      const stackName = `PodDoctorSpoke-${m.account}-${region}`;
      spokes.set(
        `${m.account}/${region}`,
        world.deploy(templates[stackName], { account: m.account, region, stackName }),
      );
    }
  const hubDeps = localIngestDeps(hub.template, await freshIncidentTable(hub.template), {
    handler: 'fleet-intake',
    config: { logGroupClusters: {}, accountScope: 'account' },
    now: () => NOW,
  });
  const outcomes: IntakeOutcome[] = [];
  world.onFunction(fnOf(hub, 'fleet-intake').arn, async (event) => {
    outcomes.push(
      await asRole(hubDeps.role, () => intake(fleetEventSchema.parse(event), event.id, { ...hubDeps.deps, members })),
    );
  });
  let lines = 0;
  let spokeInvocations = 0;
  const t0 = performance.now();
  for (const c of clusters) {
    const spoke = spokes.get(`${c.account}/${c.region}`) as Deployment;
    const ingest = fnOf(spoke, 'spoke-ingest');
    const logGroup = `/aws/containerinsights/${c.name}/dataplane`;
    for (const delivery of stormDeliveries({ lines: LINES_PER_CLUSTER, pods: 25, nodes: 5, logGroup })) {
      const out = await forwardSignals(delivery, {
        bus: { put: async (entry) => void (await world.putEvents(ingest.role, spoke.env, entry)) },
        config: { logGroupClusters: { [logGroup]: c.name }, accountScope: 'account', trustedSandboxImages: [] },
        now: () => NOW,
        account: c.account,
        region: c.region,
      });
      lines += out.received;
      spokeInvocations++;
    }
  }
  const ms = performance.now() - t0;
  const opened = new Set(outcomes.flatMap((o) => (o.admitted ? o.incidentsOpened : [])));
  return {
    lines,
    spokeInvocations,
    crossAccountEvents: world.decisions.filter((d) => d.action === 'events:PutEvents' && d.allowed).length,
    refused: world.refused.length + outcomes.filter((o) => !o.admitted).length,
    incidents: opened.size,
    startCalls: hubDeps.startCalls(),
    executions: hubDeps.started.length,
    dynamoWrites: hubDeps.authz.decisions.filter((d) => /^dynamodb:(PutItem|UpdateItem)$/.test(d.action)).length,
    ms,
  };
}

/** `npm run bench`: the fleet storm, figures and a cost per cluster-month. True when it held. */
export async function benchFleetStorm(): Promise<boolean> {
  const f = await runFleetStorm();
  // Transitions and Lambda invocations of one execution, measured on the same state machine (observe: diagnose, recommend).
  const run = await runWorkflow(incident(), {
    account: healthyAccount(),
    node: simulatedPauseNode(),
    definition: synthesizedDefinition(),
    modes: { 'sandbox-image': 'observe' },
  });
  const lambdasPerRun = run.states.filter((s) =>
    /^(Open incident|Resolve node|Check |Decide|Summarize)/.test(s),
  ).length;
  const lambda = LAMBDA_REQUEST + (ASSUMED_LAMBDA_MS / 1000) * 0.5 * LAMBDA_GB_SECOND;
  // Per storm: spoke invocations + events (spoke bus put, cross-account delivery) + intake invocations + writes + executions.
  const perStorm =
    f.spokeInvocations * lambda +
    f.crossAccountEvents * 2 * EVENT +
    f.crossAccountEvents * lambda +
    f.dynamoWrites * WRITE +
    f.executions * (run.transitions * TRANSITION + lambdasPerRun * lambda);
  console.log(
    `fleet storm: ${CLUSTERS} clusters in ${ACCOUNTS} accounts × ${REGIONS.length} Regions, ${f.lines} lines (${LINES_PER_CLUSTER} per cluster, the storm's mix) in ${f.spokeInvocations} spoke invocations, through the hub in ${(f.ms / 1000).toFixed(1)} s locally`,
  );
  console.log(
    `  ${f.crossAccountEvents} cross-account events (${f.refused} refused); ${f.incidents} incidents → ${f.executions} executions (${f.startCalls} StartExecution calls); ${f.dynamoWrites} DynamoDB writes = ${(f.dynamoWrites / f.lines).toFixed(4)} per line`,
  );
  console.log(
    `  ≈ $${((perStorm / CLUSTERS) * STORMS_PER_MONTH).toFixed(4)} per cluster-month at one such storm per cluster per day (${run.transitions} transitions and ${lambdasPerRun} Lambda invocations per execution, measured on an observe run; Lambda at an assumed ${ASSUMED_LAMBDA_MS} ms × 512 MB)`,
  );
  const held = f.refused === 0 && f.executions === f.incidents && f.startCalls >= f.executions;
  console.log(
    `  one workflow per (account, Region, cluster, scope, class), nothing refused: ${held ? 'holds' : 'BROKEN'}`,
  );
  return held;
}
