import { describe, expect, it } from 'vitest';
import { healthyAccount, NODE_ID } from '../../lib/demo/account-snapshot.js';
import { runWorkflow } from '../../lib/demo/local-workflow.js';

describe('smoke', () => {
  it('runs', async () => {
    const r = await runWorkflow(
      {
        incidentId: 'abc-1', incidentKey: `prod-eu|node:${NODE_ID}|sandbox-image`, class: 'sandbox-image', kind: 'failure', cluster: 'prod-eu', scope: 'node', scopeValue: NODE_ID,
        cause: 'pause gone', entities: { instanceId: NODE_ID, sandboxImage: 'localhost/kubernetes/pause:latest' }, firstSeen: '2026-11-29T10:00:00.000Z', samples: ['line'], pods: ['default/web-1'],
      },
      { account: healthyAccount(), node: { managed: true, run: (doc, _p, n) => ({ status: 'Success', stdout: doc.includes('probe') ? JSON.stringify({ node: {}, findings: [{ id: 'node.sandbox-image.present', status: n === 1 ? 'fail' : 'pass', summary: 's', evidence: '' }, { id: 'node.sandbox-image.pinned', status: n === 1 ? 'fail' : 'pass', summary: 's', evidence: '' }] }) : '{"status":"repaired"}' }) } },
    );
    console.log(r.status, r.error, r.states.join(' > '));
    console.log(JSON.stringify((r.output as {plan?: unknown}).plan, null, 1).slice(0, 1500), r.failures);
    expect(r.status).toBe('SUCCEEDED');
  });
});
