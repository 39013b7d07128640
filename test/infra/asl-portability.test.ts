import { describe, expect, it } from 'vitest';
import { ENDPOINT_SG, NODE_ROLE, SUBNET } from '../../local/account-snapshot.js';
import { synthesizedDefinition } from '../../local/local-workflow.js';
import { LOCAL_CONFIG } from '../../local/template.js';

/**
 * The synthesized state machine never relies on a Choice rule `IsPresent: false`: the local runtime
 * the workflow tests execute it with (aws-local-stepfunctions 3.0) reads it as always false, so a
 * branch written that way would be tested as never taken. `Not(IsPresent)` means the same in AWS.
 */
function isPresentValues(node: unknown, at = '$'): { at: string; value: unknown }[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => isPresentValues(n, `${at}[${i}]`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === 'IsPresent' ? [{ at: `${at}.${k}`, value: v }] : isPresentValues(v, `${at}.${k}`),
  );
}

describe('Choice rules the local runtime reads as AWS does', () => {
  it.each([
    ['the default configuration', LOCAL_CONFIG],
    [
      'every remedy configured',
      {
        clusters: [
          {
            ...LOCAL_CONFIG.clusters[0],
            remediation: {
              roles: [NODE_ROLE],
              endpointSecurityGroups: [ENDPOINT_SG],
              subnets: [SUBNET],
              vpcCniAddon: true,
            },
          },
        ],
      },
    ],
  ])('%s: every IsPresent is true (absence is Not(IsPresent))', (_, config) => {
    const rules = isPresentValues(synthesizedDefinition(config).States);
    expect(rules.length).toBeGreaterThan(5);
    expect(rules.filter((r) => r.value !== true)).toEqual([]);
  });
});
