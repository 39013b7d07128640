import type { ApplyPath, Check } from './apply-path.js';
import { freePrefixBlocks, type SubnetUsage } from './cidr.js';
import type { RecheckResult } from './managed-policy.js';

/**
 * /28 fragmentation with no free aligned block anywhere (a prefix reservation cannot help): move the
 * nodes' VPC CNI from prefix delegation to secondary IPs through the managed vpc-cni add-on's
 * configuration (`env.ENABLE_PREFIX_DELEGATION: "false"`), which the CNI takes while pods run
 * (https://github.com/aws/amazon-vpc-cni-k8s/releases/tag/v1.9.0). Single secondary IPs need no
 * aligned block, only free addresses: the diff shows both counts. Rolled back by restoring the
 * configuration values read before the change.
 */
export interface SecondaryIpsTarget {
  readonly kind: 'use-secondary-ips';
  readonly clusterName: string;
  /** The node's subnet whose free /28 blocks and free addresses prove the switch will work. */
  readonly subnetId: string;
}

/** The managed add-on as DescribeAddon shows it. */
export interface AddonState {
  /** ACTIVE, UPDATING, UPDATE_FAILED, DEGRADED … */
  readonly status: string;
  /** JSON (or YAML) configuration values; '' when none are set. */
  readonly configurationValues: string;
}

export interface SecondaryIpsPort {
  /** The vpc-cni add-on (waits while an update is in progress). */
  addon(clusterName: string): Promise<AddonState>;
  /** UpdateAddon with these configuration values (conflicts not resolved: EKS refuses instead). */
  configure(clusterName: string, configurationValues: string): Promise<string>;
  usage(subnetId: string): Promise<SubnetUsage>;
  /** subnet.free-prefix-blocks, run again. */
  recheck(): Promise<RecheckResult>;
}

export interface SecondaryIpsState {
  readonly addon: AddonState;
  readonly usage: SubnetUsage;
  readonly check: RecheckResult;
}

/** Single addresses the switch needs at least: what one /28 prefix would have given. */
export const MIN_FREE_ADDRESSES = 16;
const KEY = 'ENABLE_PREFIX_DELEGATION';

/** The configuration values as an object; undefined when they are not a JSON object (e.g. YAML). */
function parsed(values: string): Record<string, unknown> | undefined {
  if (values.trim() === '') return {};
  try {
    const v = JSON.parse(values) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** env.ENABLE_PREFIX_DELEGATION of the add-on configuration, or undefined. */
export function prefixDelegation(values: string): string | undefined {
  const env = parsed(values)?.env as Record<string, unknown> | undefined;
  const v = env?.[KEY];
  return typeof v === 'string' ? v : undefined;
}

/** The configuration values with prefix delegation off, every other key kept. */
export function withSecondaryIps(values: string): string {
  const v = parsed(values) ?? {};
  const env = { ...((v.env as Record<string, unknown>) ?? {}), [KEY]: 'false' };
  return JSON.stringify({ ...v, env });
}

export function secondaryIpsPath(t: SecondaryIpsTarget, port: SecondaryIpsPort): ApplyPath<SecondaryIpsState> {
  let before = '';
  const change = `set env.${KEY}="false" in the configuration values of the vpc-cni add-on of ${t.clusterName} (prefix delegation → secondary IPs)`;
  return {
    id: 'use-secondary-ips',
    change,
    async read() {
      const [addon, usage, check] = await Promise.all([
        port.addon(t.clusterName),
        port.usage(t.subnetId),
        port.recheck(),
      ]);
      return { addon, usage, check };
    },
    causeHolds(s) {
      before = s.addon.configurationValues;
      return causeHolds(t, s);
    },
    planned: (s) => ({
      ...s,
      addon: { ...s.addon, configurationValues: withSecondaryIps(s.addon.configurationValues) },
    }),
    render: (s) => render(t, s),
    async apply() {
      const id = await port.configure(t.clusterName, withSecondaryIps(before));
      return { updateId: id, configurationValues: before };
    },
    verify: async (s) => verify(t, s),
    async rollback(applied) {
      await port.configure(t.clusterName, applied.configurationValues ?? before);
    },
  };
}

function causeHolds(t: SecondaryIpsTarget, s: SecondaryIpsState): Check {
  const f = freePrefixBlocks(s.usage);
  if (s.check.status !== 'fail')
    return { ok: false, reason: `subnet.free-prefix-blocks ${s.check.status} now (${s.check.summary})` };
  if (f.freeBlocks > 0)
    return {
      ok: false,
      cannot: true,
      reason: `${t.subnetId} has ${f.freeBlocks} free /28 block(s): a prefix CIDR reservation fits, secondary IPs are not needed`,
    };
  const pd = prefixDelegation(s.addon.configurationValues);
  if (parsed(s.addon.configurationValues) === undefined)
    return {
      ok: false,
      cannot: true,
      reason: 'the vpc-cni add-on configuration values are not JSON: change them by hand',
    };
  if (pd !== 'true')
    return {
      ok: false,
      cannot: true,
      reason: `the vpc-cni add-on configuration does not set ${KEY}="true" (${pd ?? 'absent'}): prefix delegation is set elsewhere (kubectl set env on the DaemonSet); change it there`,
    };
  if (f.freeAddresses < MIN_FREE_ADDRESSES)
    return {
      ok: false,
      cannot: true,
      reason: `${t.subnetId} has only ${f.freeAddresses} free addresses: secondary IPs cannot help either; add a subnet for the node group`,
    };
  return {
    ok: true,
    reason: `${s.check.summary}; ${f.freeAddresses} single addresses are free for secondary IPs (no aligned /28 needed)`,
  };
}

function render(t: SecondaryIpsTarget, s: SecondaryIpsState): string[] {
  const f = freePrefixBlocks(s.usage);
  return [
    `vpc-cni add-on of ${t.clusterName}: status ${s.addon.status}`,
    `vpc-cni configuration values: ${s.addon.configurationValues || '(none)'}`,
    `${KEY}: ${prefixDelegation(s.addon.configurationValues) ?? '(not set)'}`,
    `subnet ${t.subnetId} ${s.usage.subnetCidr}: free aligned /28 blocks ${f.freeBlocks}, free single addresses ${f.freeAddresses}`,
  ];
}

function verify(t: SecondaryIpsTarget, s: SecondaryIpsState): Check {
  const pd = prefixDelegation(s.addon.configurationValues);
  const f = freePrefixBlocks(s.usage);
  if (s.addon.status !== 'ACTIVE')
    return { ok: false, reason: `the vpc-cni add-on is ${s.addon.status} after the change, not ACTIVE` };
  if (pd !== 'false') return { ok: false, reason: `${KEY} is ${pd ?? 'not set'} after the change` };
  if (f.freeAddresses < MIN_FREE_ADDRESSES)
    return { ok: false, reason: `only ${f.freeAddresses} free addresses left in ${t.subnetId} for secondary IPs` };
  return {
    ok: true,
    reason: `the vpc-cni add-on is ACTIVE with ${KEY}="false": new pod IPs are single secondary IPs from the ${f.freeAddresses} free addresses of ${t.subnetId} (it has ${f.freeBlocks} free /28)`,
    evidence: {
      freeBlocks: f.freeBlocks,
      freeAddresses: f.freeAddresses,
      configurationValues: s.addon.configurationValues,
      nextStep:
        "nodes keep the prefixes they hold; a node whose maxPods was set for prefixes can now run out of IPs before it runs out of pods: lower maxPods to the instance type's secondary-IP limit (node group launch template) or replace those nodes",
    },
  };
}
