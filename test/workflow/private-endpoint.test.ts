import { afterEach, describe, expect, it } from 'vitest';
import { pauseEventsCluster, seededCluster, watchedEvents } from '../../demo/cluster-seeds.js';
import { DEMO_CONFIG, ECR_PAUSE } from '../../demo/scenario-kit.js';
import { PRIVATE_CONFIG, PRIVATE_ENDPOINT } from '../../demo/scenarios-private.js';
import { healthyAccount } from '../../local/account-snapshot.js';
import { localEvents } from '../../local/events-runtime.js';
import { LocalCluster } from '../../local/local-cluster.js';
import { definitionOf, freshIncidentTable, runWorkflow } from '../../local/local-workflow.js';
import { placementOfId, reaches } from '../../local/network.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { idsOfType, type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { incident, summaryOf } from './support.js';

/**
 * Issue 36: a private-only API endpoint is reached only by functions the template places in the
 * cluster's VPC, with a rule on the cluster security group. The local network reads the placement
 * from the synthesized template (VpcConfig, SecurityGroupIngress): a missing placement fails here.
 */
const placed = () => synthesizedTemplate(PRIVATE_CONFIG);
const notPlaced = () => synthesizedTemplate(DEMO_CONFIG);

/** The template without the rule the placement adds on the cluster security group. */
function withoutIngressRule(t: ResolvedTemplate): ResolvedTemplate {
  const drop = new Set(idsOfType(t, 'AWS::EC2::SecurityGroupIngress'));
  const keep = <T>(r: Record<string, T>) => Object.fromEntries(Object.entries(r).filter(([id]) => !drop.has(id)));
  return { ...t, Resources: keep(t.Resources), raw: keep(t.raw) };
}

let cluster: LocalCluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

async function privateCluster(): Promise<LocalCluster> {
  const seeded = seededCluster(pauseEventsCluster(ECR_PAUSE));
  cluster = await LocalCluster.start(seeded, { network: PRIVATE_ENDPOINT });
  for (const e of watchedEvents(seeded)) cluster.server.coreEvents.write(e);
  return cluster;
}

async function readEvents(template: ResolvedTemplate) {
  const c = await privateCluster();
  const table = await freshIncidentTable(template);
  const reader = localEvents(template, table, {
    server: c.server,
    endpoint: c.endpoint,
    endpointFor: (p) => c.endpointFor(p),
    watchSeconds: 2,
  });
  const outcomes = await reader.invoke('private-events');
  return { outcomes, started: reader.starts.started, refused: c.kubernetes.refused };
}

describe('a private-only cluster endpoint in the local network', { timeout: 60_000 }, () => {
  it('the events reader placed in the cluster VPC reads the Warning events and opens the incident', async () => {
    const { outcomes, started, refused } = await readEvents(placed());
    expect(outcomes.map((o) => [o.cluster, o.readable])).toEqual([['prod-eu', true]]);
    expect(started.map((s) => s.class)).toContain('sandbox-image');
    expect(refused).toEqual([]);
  });

  it('the same reader outside any VPC gets no answer: the cluster is reported unreadable and nothing opens', async () => {
    const { outcomes, started, refused } = await readEvents(notPlaced());
    expect(outcomes.map((o) => [o.cluster, o.readable])).toEqual([['prod-eu', false]]);
    expect(outcomes[0].error).toMatch(/no TLS connection within|unreachable|timed? ?out/i);
    expect(started).toEqual([]);
    expect(refused[0]).toMatch(/runs outside any VPC; the API endpoint is private/);
  });

  it('placed in the VPC but without the rule on the cluster security group: no answer either', async () => {
    const { outcomes, refused } = await readEvents(withoutIngressRule(placed()));
    expect(outcomes[0].readable).toBe(false);
    expect(refused[0]).toMatch(/does not admit its security groups on 443/);
  });

  it('the workflow inspects and verifies through the copies in the VPC: pods watched, door routed there', async () => {
    const template = placed();
    const c = await privateCluster();
    const r = await runWorkflow(incident(), {
      account: healthyAccount(),
      template,
      definition: definitionOf(template),
      node: simulatedPauseNode(),
      kubernetes: c.kubernetes,
    });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    const vpc = PRIVATE_ENDPOINT.vpcId;
    expect(r.states).toContain(`Inspect cluster in ${vpc}`);
    expect(r.states).toContain(`Door in ${vpc}`);
    expect(r.states).not.toContain('Door');
    expect(r.states).not.toContain('Cluster not inspected');
    expect(summaryOf(r).message).toContain('k8s.stuck-pods');
    expect(c.kubernetes.refused).toEqual([]);
  });

  it('the workflow of a deployment that did not place its functions cannot inspect the private cluster, and says so', async () => {
    const template = notPlaced();
    const c = await privateCluster();
    const r = await runWorkflow(incident(), {
      account: healthyAccount(),
      template,
      definition: definitionOf(template),
      node: simulatedPauseNode(),
      kubernetes: c.kubernetes,
    });
    const findings = (r.output as { plan?: { findings?: { id: string; status: string; summary: string }[] } }).plan
      ?.findings;
    const k8s = findings?.filter((f) => f.id.startsWith('k8s.')) ?? [];
    expect(k8s.length).toBeGreaterThan(0);
    expect(
      k8s.every((f) => f.status === 'error'),
      JSON.stringify(k8s),
    ).toBe(true);
    expect(r.states).not.toContain('Watch pods start');
    expect(c.kubernetes.refused[0]).toMatch(/runs outside any VPC/);
  });
});

describe('the private-endpoint-cluster demo deployment', () => {
  it('runs every function that talks to the API server in the cluster VPC, none outside it', () => {
    const t = placed();
    const kubernetes = idsOfType(t, 'AWS::Lambda::Function').filter((id) =>
      ['door', 'door-remedies', 'kubernetes', 'kubernetes-events', 'kubernetes-sweep'].includes(
        String(t.Resources[id].Metadata?.PodDoctorHandler),
      ),
    );
    const where = kubernetes.map((id) => [
      t.Resources[id].Metadata?.PodDoctorHandler,
      reaches(placementOfId(t, id), PRIVATE_ENDPOINT).reached,
    ]);
    // The door outside the VPC serves no cluster here: without one it has no remediation scope either.
    expect(where.filter(([, reached]) => !reached).map(([h]) => h)).toEqual(['door']);
    expect(
      where
        .filter(([, reached]) => reached)
        .map(([h]) => String(h))
        .sort(),
    ).toEqual(['door-remedies', 'kubernetes', 'kubernetes-events', 'kubernetes-sweep']);
  });
});

describe('reachability as the AWS network decides it (placement from the template)', () => {
  const t = placed();
  const fn = (handler: string, inVpc: boolean) =>
    idsOfType(t, 'AWS::Lambda::Function').find(
      (id) =>
        t.Resources[id].Metadata?.PodDoctorHandler === handler &&
        Boolean(t.Resources[id].Properties?.VpcConfig) === inVpc,
    ) ?? '';

  it('a function in the VPC with the 443 rule reaches the private endpoint; one outside does not', () => {
    expect(reaches(placementOfId(t, fn('kubernetes-events', true)), PRIVATE_ENDPOINT)).toEqual({ reached: true });
    expect(reaches(placementOfId(t, fn('ingest', false)), PRIVATE_ENDPOINT).reached).toBe(false);
  });

  it('subnets of another VPC do not reach it', () => {
    const other = { ...PRIVATE_ENDPOINT, vpcSubnetIds: ['subnet-0ffffffffffffffff'] };
    const r = reaches(placementOfId(t, fn('kubernetes-events', true)), other);
    expect(r.reached).toBe(false);
  });

  it('a public endpoint limited to CIDRs refuses a function outside any VPC', () => {
    const limited = { ...PRIVATE_ENDPOINT, endpointPublicAccess: true, publicAccessCidrs: ['203.0.113.0/24'] };
    expect(reaches(placementOfId(t, fn('ingest', false)), limited).reached).toBe(false);
    expect(reaches(placementOfId(t, fn('ingest', false)), { ...limited, publicAccessCidrs: ['0.0.0.0/0'] })).toEqual({
      reached: true,
    });
  });
});
