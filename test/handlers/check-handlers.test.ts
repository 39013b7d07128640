import '../support/deployed-env.js';
import { describe, expect, it } from 'vitest';
import { resolveNode } from '../../lambdas/aws/readers/account/node-context.js';
import * as changes from '../../lambdas/handlers/check-changes.js';
import * as ecr from '../../lambdas/handlers/check-ecr.js';
import * as eks from '../../lambdas/handlers/check-eks.js';
import * as iam from '../../lambdas/handlers/check-iam.js';
import * as network from '../../lambdas/handlers/check-network.js';
import { APP_IMAGE, CLUSTER, fragmentSubnet, healthyAccount, NODE_DNS, REGION } from '../../local/account-snapshot.js';
import { mockAccount } from '../../local/mock-account.js';
import { lambdaContext } from '../support/lambda-context.js';

/** The check functions as Lambda runs them (Powertools middleware, parser schema), on injected clients. */
const NOW = new Date('2026-11-29T10:00:00Z');

describe('check handlers: createHandler(deps)', () => {
  it.each([
    ['iam', iam.createHandler],
    ['ecr', ecr.createHandler],
    ['network', network.createHandler],
    ['eks', eks.createHandler],
    ['changes', changes.createHandler],
  ] as const)('%s: parses the event and runs its group on the clients it is given', async (group, create) => {
    const account = healthyAccount(NOW);
    fragmentSubnet(account);
    const clients = mockAccount(account);
    try {
      const node = await resolveNode(clients.ec2, clients.iam, NODE_DNS);
      const out = await create(clients, () => NOW)(
        { node, cluster: CLUSTER, region: REGION, image: APP_IMAGE },
        lambdaContext(`pod-doctor-check-${group}`),
      );
      expect(out.group).toBe(group);
      expect(out.findings.length).toBeGreaterThan(0);
      expect(out.findings.filter((f) => f.status === 'error')).toEqual([]);
      if (group === 'network')
        expect(out.findings.find((f) => f.id === 'subnet.free-prefix-blocks')?.status).toBe('fail');
    } finally {
      clients.restore();
    }
  });

  it('refuses an event its schema does not accept with the named CheckInputError', async () => {
    const clients = mockAccount(healthyAccount(NOW));
    const h = network.createHandler(clients);
    await expect(h({ cluster: CLUSTER, region: 'not a region' }, lambdaContext())).rejects.toMatchObject({
      name: 'CheckInputError',
      message: expect.stringContaining('region'),
    });
    clients.restore();
  });
});
