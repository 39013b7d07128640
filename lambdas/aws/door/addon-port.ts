import { DescribeAddonCommand, type EKSClient, UpdateAddonCommand } from '@aws-sdk/client-eks';
import type { RecheckResult } from '../../core/remedy/managed-policy.js';
import type { AddonState, SecondaryIpsPort } from '../../core/remedy/secondary-ips.js';
import type { Ec2Client } from '../ec2/commands.js';
import { subnetUsage } from '../readers/account/subnet-usage.js';

export interface AddonWait {
  /** How long to wait while the add-on is UPDATING. @default 60 s */
  readonly timeoutMs?: number;
  /** @default 5 s */
  readonly pollMs?: number;
  readonly clock?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** EKS side of use-secondary-ips: the vpc-cni add-on, read until an update settles, and reconfigured. */
export function addonPort(
  eks: EKSClient,
  ec2: Ec2Client,
  recheck: () => Promise<RecheckResult>,
  w: AddonWait = {},
): SecondaryIpsPort {
  const clock = w.clock ?? Date.now;
  const sleep = w.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const read = async (clusterName: string): Promise<AddonState> => {
    const a = (await eks.send(new DescribeAddonCommand({ clusterName, addonName: 'vpc-cni' }))).addon;
    return { status: a?.status ?? 'UNKNOWN', configurationValues: a?.configurationValues ?? '' };
  };
  return {
    async addon(clusterName) {
      const start = clock();
      for (;;) {
        const a = await read(clusterName);
        if (a.status !== 'UPDATING' || clock() - start >= (w.timeoutMs ?? 60_000)) return a;
        await sleep(w.pollMs ?? 5_000);
      }
    },
    async configure(clusterName, configurationValues) {
      const r = await eks.send(
        // resolveConflicts NONE: a value changed on the cluster makes EKS fail the update, never overwrite it.
        new UpdateAddonCommand({ clusterName, addonName: 'vpc-cni', configurationValues, resolveConflicts: 'NONE' }),
      );
      return r.update?.id ?? '';
    },
    usage: async (subnetId) => (await subnetUsage(ec2, subnetId)).usage,
    recheck,
  };
}
