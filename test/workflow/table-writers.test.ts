import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  configKey,
  grantKey,
  incidentRunKey,
  ledgerCallKey,
  nodeEvidenceKey,
  openIncidentKey,
  type TableKey,
} from '../../lambdas/core/contract/incident-table.js';
import { asRole } from '../../local/guard.js';
import { TemplateAuthorizer } from '../../local/iam.js';
import { guardedDocumentClient } from '../../local/ingest-runtime.js';
import { freshIncidentTable } from '../../local/local-workflow.js';
import {
  arnOf,
  idsOfType,
  LOCAL_CONFIG,
  type ResolvedTemplate,
  resolveTemplate,
  synthesizedTemplate,
} from '../../local/template.js';
import { FLEET, fleetTemplates } from '../support/fleet-templates.js';

/**
 * Rows only their owner writes (issue 34): each kind of row the door or the workflow trusts has one
 * writer, and IAM — the synthesized policies, decided by the local authorizer with the request's
 * partition key as DynamoDB passes it (`dynamodb:LeadingKeys`) — holds every other role to that.
 */

const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'] as const;
type Write = (typeof WRITES)[number];

interface RowCase {
  readonly kind: string;
  readonly key: TableKey;
  /** The handlers whose roles may write it, and how. */
  readonly writers: Readonly<Record<string, readonly Write[]>>;
}

const ROWS: RowCase[] = [
  {
    kind: 'config',
    key: configKey('0123abcd'),
    writers: { 'config-writer': ['dynamodb:PutItem', 'dynamodb:DeleteItem'] },
  },
  // A human's decision, one code path (resolveApproval) behind two entry points: the signed link's
  // review page and the chat approvals' consumer; no other role, and none that parses tenant input.
  {
    kind: 'approval grant',
    key: grantKey('d'.repeat(64)),
    writers: { 'approval-callback': ['dynamodb:PutItem'], 'approval-chat': ['dynamodb:PutItem'] },
  },
  {
    kind: 'node evidence',
    key: nodeEvidenceKey('i-0a1b2c3d4e5f60718'),
    writers: {
      door: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      'door-remedies': ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    },
  },
  {
    kind: "the door's ledger",
    key: ledgerCallKey('arn:aws:states:eu-west-1:111122223333:execution:PodDoctor:run-1', 'c0ffee'),
    writers: {
      door: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      'door-remedies': ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    },
  },
  // Append-only: new rows only, no update or delete by anyone.
  {
    kind: 'history',
    key: incidentRunKey('prod-eu|node:i-1|sandbox-image', 1, 'run-1'),
    writers: { summarize: ['dynamodb:PutItem'] },
  },
  {
    kind: 'incidents',
    key: openIncidentKey('prod-eu|node:i-1|sandbox-image'),
    // The detection paths open and join the same incident; Summarize records a run's close.
    writers: {
      ingest: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      'kubernetes-sweep': ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      'kubernetes-events': ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      'fleet-intake': ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      summarize: ['dynamodb:UpdateItem'],
    },
  },
];

/** Every role of a template, named by the handler its function runs (else by its logical id). */
function rolesOf(template: ResolvedTemplate): { role: string; handler: string }[] {
  const handlers = new Map<string, string>();
  for (const id of idsOfType(template, 'AWS::Lambda::Function')) {
    const meta = (template.raw[id] as { Metadata?: { PodDoctorHandler?: string } }).Metadata;
    handlers.set(String(template.Resources[id].Properties?.Role), meta?.PodDoctorHandler ?? `function ${id}`);
  }
  return idsOfType(template, 'AWS::IAM::Role').map((id) => {
    const role = arnOf(template, id);
    return { role, handler: handlers.get(role) ?? `role ${id}` };
  });
}

/** The incident table's ARN in a template. */
const tableArn = (template: ResolvedTemplate) => arnOf(template, idsOfType(template, 'AWS::DynamoDB::GlobalTable')[0]);

const TEMPLATES = [
  {
    name: 'a cluster with a remediation scope (door-remedies)',
    template: synthesizedTemplate({
      clusters: [{ ...LOCAL_CONFIG.clusters[0], remediation: { roles: ['NodeRole'] } }],
    }),
  },
  {
    name: 'the fleet hub (fleet intake)',
    template: resolveTemplate(
      Object.entries(fleetTemplates(FLEET)).find(([n]) => /hub/i.test(n))?.[1] as Parameters<typeof resolveTemplate>[0],
    ),
  },
];

describe.each(TEMPLATES)('one writer per row kind: $name', { timeout: 120_000 }, ({ template }) => {
  const authz = new TemplateAuthorizer(template);
  const table = tableArn(template);
  const roles = rolesOf(template);

  it.each(ROWS)('$kind: its writer may, every other role is denied', async (row) => {
    const allowed: string[] = [];
    for (const { role, handler } of roles)
      for (const action of WRITES) {
        const why = await authz.deniedBecause(role, {
          action,
          resource: table,
          context: { 'dynamodb:LeadingKeys': [row.key.pk] },
        });
        if (!why) allowed.push(`${handler} ${action}`);
      }
    const expected = roles.flatMap(({ handler }) => (row.writers[handler] ?? []).map((a) => `${handler} ${a}`));
    expect(expected.length).toBeGreaterThan(0);
    expect(allowed.sort()).toEqual(expected.sort());
  });
});

describe("through the local runtime's guard: the request's own keys decide", { timeout: 120_000 }, () => {
  const template = synthesizedTemplate();
  const roleOf = (handler: string) => rolesOf(template).find((r) => r.handler === handler)?.role ?? '';

  it.each([
    ['ingest', grantKey('d'.repeat(64))],
    ['ingest', nodeEvidenceKey('i-0a1b2c3d4e5f60718')],
    ['ingest', configKey('0123abcd')],
    ['kubernetes-events', incidentRunKey('k', 1, 'run-1')],
    ['approval-callback', openIncidentKey('k')],
  ] as const)('%s cannot put %o', async (handler, key) => {
    const t = await freshIncidentTable(template);
    const ddb = guardedDocumentClient(t, new TemplateAuthorizer(template));
    const put = asRole(roleOf(handler), () => ddb.send(new PutCommand({ TableName: t.name, Item: { ...key, x: 1 } })));
    await expect(put).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(await t.scan()).toEqual([]);
  });

  it('the writer can: ingest puts an open incident row', async () => {
    const t = await freshIncidentTable(template);
    const ddb = guardedDocumentClient(t, new TemplateAuthorizer(template));
    const key = openIncidentKey('prod-eu|node:i-1|sandbox-image');
    await asRole(roleOf('ingest'), () => ddb.send(new PutCommand({ TableName: t.name, Item: { ...key, x: 1 } })));
    expect(await t.scan()).toEqual([{ ...key, x: 1 }]);
  });
});
