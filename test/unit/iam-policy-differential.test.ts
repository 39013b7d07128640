import { runSimulation } from '@cloud-copilot/iam-simulate';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Decision,
  evaluate,
  type NamedPolicy,
  type PolicyStatement,
} from '../../lambdas/core/policy/iam-policy.js';

/**
 * The node-role check keeps a small hand-written evaluator (it runs inside a Lambda; the library and
 * its IAM data would add megabytes). It is tested against the maintained
 * evaluator on the same cases: fast-check generates identity policies from the statement shapes the
 * check meets (Action/NotAction, Resource/NotResource, wildcards, mixed case, Allow and Deny) and
 * `@cloud-copilot/iam-simulate` decides the same request. Conditions are out: the hand-written
 * evaluator reports them as "conditionally-…" instead of deciding them.
 */
const ACCOUNT = '111122223333';
const REPO = `arn:aws:ecr:eu-west-1:${ACCOUNT}:repository/team/app`;
const OTHER_REPO = `arn:aws:ecr:eu-west-1:444455556666:repository/base/pause`;
const ENI = `arn:aws:ec2:eu-west-1:${ACCOUNT}:network-interface/eni-0123456789abcdef0`;

/** Requests the node-role check makes, with resources of the type each action accepts. */
const REQUESTS: readonly (readonly [string, string])[] = [
  ['ecr:BatchGetImage', REPO],
  ['ecr:GetDownloadUrlForLayer', REPO],
  ['ecr:BatchCheckLayerAvailability', OTHER_REPO],
  ['ecr:GetAuthorizationToken', '*'],
  ['ec2:AssignPrivateIpAddresses', ENI],
  ['ec2:DescribeNetworkInterfaces', '*'],
];

const ACTION_PATTERNS = [
  'ecr:BatchGetImage',
  'ecr:batchgetimage',
  'ECR:GetDownloadUrlForLayer',
  'ecr:Batch*',
  'ecr:Get*',
  'ecr:*',
  'ecr:Get?ownloadUrlForLayer',
  'ecr:GetAuthorizationToken',
  'ec2:*NetworkInterface*',
  'ec2:Describe*',
  'ec2:AssignPrivateIpAddresses',
  's3:GetObject',
  '*',
];

const RESOURCE_PATTERNS = [
  '*',
  REPO,
  OTHER_REPO,
  `arn:aws:ecr:*:${ACCOUNT}:repository/*`,
  'arn:aws:ecr:eu-west-1:*:repository/team/*',
  'arn:aws:ecr:eu-west-1:111122223333:repository/team/ap?',
  'arn:aws:ecr:us-east-1:111122223333:repository/*',
  `arn:aws:ec2:eu-west-1:${ACCOUNT}:network-interface/*`,
  'arn:aws:ec2:*:*:*',
];

const oneOrMany = (values: readonly string[]) =>
  fc.oneof(fc.constantFrom(...values), fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 }));

const statementArb: fc.Arbitrary<PolicyStatement> = fc
  .record({
    effect: fc.constantFrom<'Allow' | 'Deny'>('Allow', 'Allow', 'Deny'),
    notAction: fc.boolean(),
    notResource: fc.boolean(),
    actions: oneOrMany(ACTION_PATTERNS),
    resources: oneOrMany(RESOURCE_PATTERNS),
  })
  .map(
    ({ effect, notAction, notResource, actions, resources }): PolicyStatement => ({
      Effect: effect,
      ...(notAction ? { NotAction: actions } : { Action: actions }),
      ...(notResource ? { NotResource: resources } : { Resource: resources }),
    }),
  );

const policiesArb = fc
  .array(fc.array(statementArb, { minLength: 1, maxLength: 4 }), { minLength: 0, maxLength: 3 })
  .map((documents) =>
    documents.map((Statement, i) => ({ name: `policy-${i}`, document: { Version: '2012-10-17', Statement } })),
  );

type Simulated = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied';
const AS_LIBRARY: Partial<Record<Decision, Simulated>> = {
  allowed: 'Allowed',
  denied: 'ExplicitlyDenied',
  'implicitly-denied': 'ImplicitlyDenied',
};

async function simulate(policies: readonly NamedPolicy[], action: string, resource: string): Promise<string> {
  const response = await runSimulation(
    {
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:role/eks-node-role`,
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: {},
      },
      identityPolicies: policies.map((p) => ({ name: p.name, policy: p.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    } as never,
    {},
  );
  if (response.resultType === 'error') throw new Error(JSON.stringify(response.errors));
  return response.overallResult;
}

describe('the hand-written IAM evaluator agrees with @cloud-copilot/iam-simulate', () => {
  it('on generated unconditional identity policies, for every request the node-role check makes', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(policiesArb, fc.constantFrom(...REQUESTS), async (policies, [action, resource]) => {
        const ours = evaluate(policies as NamedPolicy[], action, resource).decision;
        const library = await simulate(policies as NamedPolicy[], action, resource);
        compared++;
        expect({ action, resource, policies, decision: AS_LIBRARY[ours] }).toEqual({
          action,
          resource,
          policies,
          decision: library,
        });
      }),
      { numRuns: 400, seed: 20261130 },
    );
    expect(compared).toBeGreaterThanOrEqual(400);
  }, 60_000);

  it('on the hand-picked cases where wildcard and NotAction semantics differ most', async () => {
    const cases: [PolicyStatement[], string, string][] = [
      [[{ Effect: 'Allow', NotAction: 'ecr:Batch*', Resource: '*' }], 'ecr:BatchGetImage', REPO],
      [[{ Effect: 'Allow', Action: 'ECR:BATCHGETIMAGE', Resource: REPO }], 'ecr:BatchGetImage', REPO],
      [[{ Effect: 'Allow', Action: 'ecr:*', NotResource: OTHER_REPO }], 'ecr:BatchGetImage', REPO],
      [
        [{ Effect: 'Allow', Action: 'ecr:*', Resource: 'arn:aws:ecr:eu-west-1:111122223333:repository/Team/*' }],
        'ecr:BatchGetImage',
        REPO,
      ],
      [
        [
          { Effect: 'Allow', Action: '*', Resource: '*' },
          { Effect: 'Deny', NotAction: 'ecr:GetAuthorizationToken', Resource: '*' },
        ],
        'ecr:GetAuthorizationToken',
        '*',
      ],
    ];
    for (const [Statement, action, resource] of cases) {
      const policies = [{ name: 'p', document: { Version: '2012-10-17', Statement } }];
      expect(AS_LIBRARY[evaluate(policies, action, resource).decision]).toBe(
        await simulate(policies, action, resource),
      );
    }
  });
});
