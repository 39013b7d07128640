import { describe, expect, it } from 'vitest';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

describe('account check functions', () => {
  const { template, templateJson } = synth({
    clusters: [{ name: 'prod-eu' }, { name: 'prod-us', region: 'eu-west-1' }],
  });
  const statements = identityStatements(templateJson);

  it('creates one function per check group plus node resolution, each with its own role', () => {
    const fns = Object.values(template.findResources('AWS::Lambda::Function')).filter((f) =>
      String((f as { Properties: { Description?: string } }).Properties.Description).match(
        /checks|resolve a node|change attribution/,
      ),
    );
    expect(fns).toHaveLength(6);
    expect(new Set(fns.map((f) => JSON.stringify((f as { Properties: { Role: unknown } }).Properties.Role))).size).toBe(
      6,
    );
  });

  it('grants only read actions', () => {
    const checkActions = statements
      .filter((s) => /Checks/.test(s.logicalId) && s.Effect === 'Allow')
      .flatMap((s) => s.Action);
    expect(checkActions.length).toBeGreaterThan(15);
    const writes = checkActions.filter(
      (a) =>
        !/^(ec2|iam|eks|ecr):(Describe|Get|List)|^dynamodb:Query$|^logs:(CreateLogStream|PutLogEvents)$|^xray:Put/.test(
          a,
        ),
    );
    expect(writes).toEqual([]);
  });

  it('scopes EKS reads to the configured clusters, in the stack region', () => {
    const { templateJson: deployed } = synth(
      { clusters: [{ name: 'prod-eu' }, { name: 'prod-us' }] },
      { deploy: true },
    );
    const eks = identityStatements(deployed).filter((s) => s.Action.some((a) => a === 'eks:DescribeCluster'));
    const text = JSON.stringify(eks.map((s) => s.Resource));
    expect(text).toContain('cluster/prod-eu');
    expect(text).toContain(':eks:eu-west-1:111122223333:cluster/prod-us');
    expect(text).toContain('cluster/prod-us');
    expect(text).not.toContain('cluster/*');
  });

  it('reads recent changes from the change index (Query on CHANGE# keys only), never from CloudTrail', () => {
    const queries = statements.filter((s) => s.Action.includes('dynamodb:Query') && /Checks/.test(s.logicalId));
    expect(queries.map((s) => s.logicalId).sort()).toEqual([
      expect.stringMatching(/ChecksCheckChanges/),
      expect.stringMatching(/ChecksCheckEcr/),
    ]);
    for (const q of queries) {
      expect(q.Action).toEqual(['dynamodb:Query']);
      expect(q.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CHANGE#*'] } });
    }
    expect(statements.flatMap((s) => s.Action)).not.toContain('cloudtrail:LookupEvents');
  });
});
