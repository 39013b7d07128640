import {
  type Addon,
  type EKSClientResolvedConfig,
  type ServiceInputTypes as EksInput,
  type ServiceOutputTypes as EksOutput,
  InvalidParameterException,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateAddonCommand,
} from '@aws-sdk/client-eks';
import type { AwsStub } from 'aws-sdk-client-mock';
import type { AccountSnapshot } from './account-snapshot.js';
import type { Answer, WriteFaults } from './mock-account-writes.js';
import { meta } from './mock-sdk.js';

/** What an add-on update in progress ends as, on the next DescribeAddon. */
const pending = new WeakMap<Addon, { status: string; configurationValues?: string; issue?: string }>();

/**
 * An add-on update settles on the next read, as `aws eks describe-addon` shows it once the update
 * finished: ACTIVE with the new configuration values, or UPDATE_FAILED with the values before and a
 * health issue (the conflict EKS reports with resolveConflicts NONE).
 */
export function settled(a: Addon): Addon {
  const p = pending.get(a);
  if (!p) return a;
  pending.delete(a);
  a.status = p.status as Addon['status'];
  if (p.configurationValues !== undefined) a.configurationValues = p.configurationValues;
  a.health = p.issue
    ? { issues: [{ code: 'ConfigurationConflict', message: p.issue, resourceIds: ['aws-node'] }] }
    : { issues: [] };
  a.modifiedAt = new Date('2026-11-29T10:06:00Z');
  return a;
}

/**
 * UpdateAddon on the recorded account, with its response shape (an `update` of type AddonUpdate,
 * InProgress) and refusals: an add-on that does not exist, one already UPDATING, configuration
 * values that are not a JSON or YAML object. `revert: ['UpdateAddonCommand']` makes the first update
 * fail as a field conflict does (the DaemonSet's value was changed on the cluster).
 */
export function mockAddonWrites(
  account: AccountSnapshot,
  k: AwsStub<EksInput, EksOutput, EKSClientResolvedConfig>,
  on: Answer,
  faults: WriteFaults = {},
): void {
  let failNext = faults.revert?.includes('UpdateAddonCommand') ?? false;
  const inUse = (message: string) => new ResourceInUseException({ message, $metadata: meta(409) });
  const invalid = (message: string) => new InvalidParameterException({ message, $metadata: meta(400) });
  k.on(UpdateAddonCommand).callsFake(
    on('UpdateAddonCommand', (i: { clusterName?: string; addonName?: string; configurationValues?: string }) => {
      const a = account.addons.find((x) => x.clusterName === i.clusterName && x.addonName === i.addonName);
      if (!a)
        throw new ResourceNotFoundException({
          message: `No addon: ${i.addonName} found in cluster: ${i.clusterName}`,
          $metadata: meta(404),
        });
      if (a.status === 'UPDATING' || pending.has(a)) throw inUse(`Addon ${i.addonName} is currently being updated`);
      if (i.configurationValues !== undefined && !isObject(i.configurationValues))
        throw invalid('ConfigurationValue provided in request is not supported: Json schema validation failed');
      const values = i.configurationValues;
      a.status = 'UPDATING';
      pending.set(
        a,
        failNext
          ? {
              status: 'UPDATE_FAILED',
              issue: `Conflicts found when trying to apply. Will not continue due to resolve conflicts mode. Conflicts: DaemonSet.apps aws-node - .spec.template.spec.containers[name="aws-node"].env[name="ENABLE_PREFIX_DELEGATION"].value`,
            }
          : { status: 'ACTIVE', ...(values !== undefined ? { configurationValues: values } : {}) },
      );
      failNext = false;
      return {
        update: {
          id: 'b7c1e0a2-6f4d-3c8e-9a1b-2d3e4f5a6b7c',
          status: 'InProgress',
          type: 'AddonUpdate',
          params: [
            ...(values !== undefined ? [{ type: 'ConfigurationValues', value: values }] : []),
            { type: 'ResolveConflicts', value: 'NONE' },
          ],
          createdAt: new Date('2026-11-29T10:05:30Z'),
          errors: [],
        },
      };
    }),
  );
}

/** Configuration values are a JSON object (YAML is accepted by EKS too; pod-doctor writes JSON). */
function isObject(values: string): boolean {
  try {
    const v = JSON.parse(values) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
