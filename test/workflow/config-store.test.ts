import { describe, expect, it } from 'vitest';
import { configKey } from '../../lambdas/core/contract/incident-table.js';
import { deployConfig, loadConfigAs, roleOfHandler } from '../../local/config-store.js';
import { TemplateAuthorizer } from '../../local/iam.js';
import { freshIncidentTable } from '../../local/local-workflow.js';
import { ACCOUNT, REGION, synthesizedTemplate } from '../../local/template.js';

/**
 * The deployment's configuration as deployed: the Config resource's writer stores it, every function
 * that carries its location reads it as its own role, and IAM (the template's policies, decided
 * locally) lets each do exactly that.
 */
describe('configuration store under the template’s IAM', { timeout: 60_000 }, () => {
  const template = synthesizedTemplate();
  const readers = Object.values(template.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function')
    .map((r) => ({
      role: String(r.Properties?.Role),
      vars: (r.Properties?.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {},
    }))
    .filter((f) => f.vars.CONFIG_VERSION);

  it('every function that reads the configuration carries its location, and no function carries the document', () => {
    // open, decide, act gate, verify, summarize, approval request and callback, ingest, sweep
    expect(readers.length).toBeGreaterThanOrEqual(9);
    const all = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    for (const f of all)
      expect(JSON.stringify(f.Properties?.Environment ?? {})).not.toContain('killSwitchParameterName');
  });

  it('the writer stores it, and each reader reads it as its own role', async () => {
    const table = await freshIncidentTable(template);
    const authz = new TemplateAuthorizer(template);
    const at = await deployConfig(template, table, authz);
    for (const f of readers) {
      expect(f.vars.CONFIG_VERSION).toBe(at.version);
      const config = await loadConfigAs(f.role, at, table, authz);
      expect(config.clusters.map((c) => c.name)).toEqual(['prod-eu']);
    }
  });

  it('the read grant covers the CONFIG partition only; the writer may write nothing else', async () => {
    const authz = new TemplateAuthorizer(template);
    const table = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${(await freshIncidentTable(template)).name}`;
    const item = (action: string, pk: string) => ({
      action,
      resource: table,
      context: { 'dynamodb:LeadingKeys': [pk] },
    });
    // The ingest function writes incidents but reads nothing else of the table.
    const ingest = readers.find((f) => f.vars.EVIDENCE_BUCKET_NAME)?.role ?? '';
    expect(await authz.deniedBecause(ingest, item('dynamodb:GetItem', configKey('x').pk))).toBeUndefined();
    expect(await authz.deniedBecause(ingest, item('dynamodb:GetItem', 'APPROVAL#a'))).toBeDefined();
    const writer = roleOfHandler(template, 'config-writer');
    expect(await authz.deniedBecause(writer, item('dynamodb:PutItem', configKey('x').pk))).toBeUndefined();
    expect(await authz.deniedBecause(writer, item('dynamodb:PutItem', 'INCIDENT#k'))).toBeDefined();
    expect(await authz.deniedBecause(writer, item('dynamodb:GetItem', configKey('x').pk))).toBeDefined();
  });
});
