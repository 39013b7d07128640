import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountSnapshot,
  CLUSTER,
  fragmentSubnet,
  healthyAccount,
  NODE_ID,
  SUBNET,
} from '../../local/account-snapshot.js';
import { withoutGrant } from '../../local/iam.js';
import { definitionOf, runWorkflow } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { LOCAL_CONFIG, type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { incident } from './support.js';

/**
 * /28 fragmentation with no free aligned block left (issue 14): a prefix reservation cannot help,
 * so the apply path moves the vpc-cni add-on from prefix delegation to secondary IPs (UpdateAddon
 * of its configuration values), approve tier always, rolled back to the values read before.
 */
const BEFORE = '{"env":{"ENABLE_PREFIX_DELEGATION":"true","WARM_PREFIX_TARGET":"1"}}';
const AFTER = '{"env":{"ENABLE_PREFIX_DELEGATION":"false","WARM_PREFIX_TARGET":"1"}}';
let template: ResolvedTemplate;
beforeAll(() => {
  template = synthesizedTemplate({
    clusters: [{ ...LOCAL_CONFIG.clusters[0], remediation: { vpcCniAddon: true } }],
  });
});

const vpcCni = (a: AccountSnapshot) => a.addons.find((x) => x.addonName === 'vpc-cni');
function fragmented(): AccountSnapshot {
  const a = healthyAccount();
  fragmentSubnet(a, 212, 0);
  const addon = vpcCni(a);
  if (addon) addon.configurationValues = BEFORE;
  return a;
}

async function run(
  o: {
    mode?: 'approve' | 'auto';
    tier?: 'dry-run' | 'approve' | 'auto';
    approval?: 'approve' | 'reject';
    killSwitch?: 'on';
    broken?: boolean;
    template?: ResolvedTemplate;
  } = {},
) {
  const account = fragmented();
  const r = await runWorkflow(
    incident({
      class: 'cidr-fragmentation',
      incidentKey: `prod-eu|node:${NODE_ID}|cidr-fragmentation`,
      cause: 'ipamd: InsufficientCidrBlocks: The specified subnet does not have enough free cidr blocks',
    }),
    {
      account,
      template: o.template ?? template,
      definition: definitionOf(o.template ?? template),
      node: simulatedPauseNode(),
      modes: { 'cidr-fragmentation': o.mode ?? 'approve' },
      remedies: o.tier ? { 'cidr-fragmentation': o.tier } : {},
      approval: o.approval ?? 'approve',
      killSwitch: o.killSwitch,
      ...(o.broken ? { faults: { revert: ['UpdateAddonCommand'] } } : {}),
    },
  );
  return { r, account, summary: (r.output.summary ?? {}) as { outcome: string; message: string } };
}

describe('use-secondary-ips: no free aligned /28 left, the vpc-cni add-on moves to secondary IPs', {
  timeout: 60_000,
}, () => {
  it('approve: the e-mail shows the configuration before/after and the free /28 vs free addresses; approved, applied, verified', async () => {
    const { r, account, summary } = await run();
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    const request = r.sns.find((m) => /approval needed: use-secondary-ips/.test(m.subject ?? ''));
    expect(request?.message).toContain(`- vpc-cni configuration values: ${BEFORE}`);
    expect(request?.message).toContain(`+ vpc-cni configuration values: ${AFTER}`);
    expect(request?.message).toContain('- ENABLE_PREFIX_DELEGATION: true');
    expect(request?.message).toContain('+ ENABLE_PREFIX_DELEGATION: false');
    expect(request?.message).toMatch(
      new RegExp(`subnet ${SUBNET} 10\\.0\\.\\S+: free aligned /28 blocks 0, free single addresses \\d{2,}`),
    );
    expect(vpcCni(account)).toMatchObject({ configurationValues: AFTER, status: 'ACTIVE' });
    expect(summary.outcome).toMatch(
      /^remedied and verified: set env\.ENABLE_PREFIX_DELEGATION="false" in the configuration values of the vpc-cni add-on of prod-eu/,
    );
    expect(summary.message).toMatch(/use-secondary-ips: verified \(approved through the signed link at 20/);
    expect(summary.message).toMatch(/new pod IPs are single secondary IPs from the \d+ free addresses/);
    expect(summary.message).toMatch(
      /NEXT STEP +nodes keep the prefixes they hold; a node whose maxPods was set for prefixes/,
    );
    // Exactly one UpdateAddon, as the door's role, on the cluster's vpc-cni add-on.
    const updates = r.decisions.filter((d) => d.action === 'eks:UpdateAddon');
    expect(updates.map((d) => [d.principal.replace(/.*:role\//, '').includes('Door'), d.allowed])).toEqual([
      [true, true],
    ]);
    expect(updates[0].resource).toMatch(new RegExp(`:addon/${CLUSTER}/vpc-cni/`));
  });

  it('never auto: the class in auto mode with the remedy tier auto still asks first', async () => {
    const { r, summary } = await run({ mode: 'auto', tier: 'auto' });
    expect(r.states).toContain('Door: ask');
    expect(summary.message).toContain(
      'use-secondary-ips changes the CNI of every node of the cluster: it always asks first',
    );
  });

  it('dry run: the diff in the summary, the add-on untouched', async () => {
    const { r, account, summary } = await run({ mode: 'auto', tier: 'dry-run' });
    expect(r.decisions.filter((d) => d.action === 'eks:UpdateAddon')).toEqual([]);
    expect(vpcCni(account)?.configurationValues).toBe(BEFORE);
    expect(summary.outcome).toMatch(/^dry run: would set env\.ENABLE_PREFIX_DELEGATION="false"/);
    expect(summary.message).toContain('+ ENABLE_PREFIX_DELEGATION: false');
  });

  it('the update fails (a field conflict on the cluster) → rolled back to the values before, never "verified"', async () => {
    const { r, account, summary } = await run({ broken: true });
    expect(r.states).toContain('Remedy: request');
    expect(summary.outcome).toMatch(
      /^use-secondary-ips rolled-back: verification failed \(the vpc-cni add-on is UPDATE_FAILED after the change, not ACTIVE\)/,
    );
    expect(summary.outcome).not.toMatch(/ verified/);
    expect(vpcCni(account)).toMatchObject({ configurationValues: BEFORE, status: 'ACTIVE' });
    expect(r.decisions.filter((d) => d.action === 'eks:UpdateAddon')).toHaveLength(2);
  });

  it('a rejected approval changes nothing', async () => {
    const { account, summary } = await run({ approval: 'reject' });
    expect(vpcCni(account)?.configurationValues).toBe(BEFORE);
    expect(summary.outcome).toBe('no action: rejected by the approver');
  });

  it('kill switch on: nothing prepared, nothing changed', async () => {
    const { r, account, summary } = await run({ killSwitch: 'on' });
    expect(r.decisions.filter((d) => d.action === 'eks:UpdateAddon')).toEqual([]);
    expect(vpcCni(account)?.configurationValues).toBe(BEFORE);
    expect(summary.message).toContain('use-secondary-ips: kill switch is on');
  });

  it('without its grant the update is denied by IAM and nothing changes', async () => {
    const { r, account, summary } = await run({ template: withoutGrant(template, /Door/, 'eks:UpdateAddon') });
    expect(r.decisions.filter((d) => d.action === 'eks:UpdateAddon').map((d) => d.allowed)).toEqual([false]);
    expect(vpcCni(account)?.configurationValues).toBe(BEFORE);
    expect(summary.outcome).toMatch(/^use-secondary-ips failed: the change failed: AccessDenied/);
  });
});

describe('no free aligned /28 left and the add-on not in scope (no remediation.vpcCniAddon)', {
  timeout: 60_000,
}, () => {
  it('Decide plans no CIDR reservation (it cannot help); the e-mail gives the honest alternatives', async () => {
    const subnetsOnly = synthesizedTemplate({
      clusters: [{ ...LOCAL_CONFIG.clusters[0], remediation: { subnets: [SUBNET] } }],
    });
    const { r, account, summary } = await run({ mode: 'auto', tier: 'auto', template: subnetsOnly });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states.filter((s) => /remedy/i.test(s))).toEqual([]);
    expect(r.decisions.filter((d) => /SubnetCidrReservation/.test(d.action) && !/Get/.test(d.action))).toEqual([]);
    expect(account.cidrReservations[SUBNET]).toEqual([]);
    expect(summary.message).not.toMatch(/create-subnet-cidr-reservation|create a prefix-type/);
    expect(summary.message).toMatch(/a prefix reservation cannot help/);
    expect(summary.message).toMatch(/add a subnet/);
    expect(summary.message).toMatch(/secondary IPs/);
  });
});
