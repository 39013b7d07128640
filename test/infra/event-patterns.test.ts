import { describe, expect, it } from 'vitest';
import { matchesEventPattern } from '../../local/event-pattern.js';
import { cloudTrailFixture, fixture } from '../support/fixtures.js';
import { synth } from '../support/synth.js';

/**
 * The synthesized EventBridge rules against real CloudTrail event shapes, matched with EventBridge's
 * semantics (local/event-pattern.ts): which rule, if any, delivers each event to ingest.
 */
describe('CloudTrail rules as EventBridge matches them', () => {
  const { template } = synth({
    clusters: [{ name: 'prod-eu', logGroups: ['/aws/containerinsights/prod-eu/dataplane'] }],
  });
  const rules = Object.values(template.findResources('AWS::Events::Rule'))
    .map((r) => (r as { Properties: { Description: string; EventPattern: Record<string, unknown> } }).Properties)
    .filter((p) => /CloudTrail|CNI|ECR|EKS|role polic|security group/i.test(p.Description) && p.EventPattern.detail);
  const matching = (event: unknown) =>
    rules
      .filter((r) => matchesEventPattern(r.EventPattern, event))
      .map((r) => r.Description.split(':')[1].trim().split(' ').slice(0, 3).join(' '));

  it('finds the CloudTrail rules in the template', () => {
    expect(rules.length).toBeGreaterThanOrEqual(7);
  });

  it('does not deliver an EC2 dry run (Client.DryRunOperation) as a CNI failure', () => {
    expect(matching(cloudTrailFixture('create-eni-dry-run'))).toEqual([]);
  });

  it('delivers real CNI failures and no successful call', () => {
    expect(matching(fixture('events/assign-ip-unauthorized.json'))).toEqual(['EC2 calls of']);
    expect(matching(fixture('events/assign-prefix-insufficient-cidr.json'))).toEqual(['EC2 calls of']);
    for (const name of ['assign-ip-no-free-ipv4', 'create-eni-no-free-ipv4', 'attach-eni-no-free-ipv4'])
      expect(matching(fixture(`events/${name}.json`))).toEqual(['EC2 calls of']);
    expect(matching(fixture('events/assign-ip-success.json'))).toEqual([]);
  });

  it('delivers an ECR lifecycle expiry (PolicyExecutionEvent, an AWS service event) to the lifecycle rule only', () => {
    expect(matching(cloudTrailFixture('ecr-lifecycle-expiry'))).toEqual(['images expired by']);
  });

  it('delivers role policy changes and ingress revocations (ingest then scopes them to node roles and endpoint groups)', () => {
    expect(matching(fixture('events/detach-ecr-readonly.json'))).toEqual(['role policies detached,']);
    expect(matching(cloudTrailFixture('put-role-policy-controller-role'))).toEqual(['role policies detached,']);
    expect(matching(fixture('events/revoke-endpoint-sg-443.json'))).toEqual(['security group ingress']);
  });
});
