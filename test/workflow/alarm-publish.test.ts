import { describe, expect, it } from 'vitest';
import { TemplateAuthorizer } from '../../local/iam.js';
import {
  ACCOUNT,
  arnOf,
  idsOfType,
  REGION,
  type ResolvedTemplate,
  refOf,
  synthesizedTemplate,
} from '../../local/template.js';
import { topicKeyRequests } from '../../local/workflow-clients.js';

/**
 * Failure alerts reach the topic: every CloudWatch alarm and every EventBridge rule that publishes to
 * a topic is decided by the synthesized topic and key policies, as SNS and KMS decide it. CloudWatch
 * calls with aws:SourceArn (the alarm) and aws:SourceAccount; EventBridge names its rule to SNS
 * (aws:SourceArn) but its KMS requests for an encrypted topic carry neither key.
 */
const CLOUDWATCH = 'cloudwatch.amazonaws.com';
const EVENTS = 'events.amazonaws.com';

type Publisher = { id: string; principal: string; topic: string; sourceArn: string };

function publishers(t: ResolvedTemplate): Publisher[] {
  const topics = new Set(idsOfType(t, 'AWS::SNS::Topic').map((id) => refOf(t, id)));
  const alarms = idsOfType(t, 'AWS::CloudWatch::Alarm').flatMap((id) =>
    ((t.Resources[id].Properties?.AlarmActions as string[] | undefined) ?? [])
      .filter((a) => topics.has(a))
      .map((topic) => ({
        id,
        principal: CLOUDWATCH,
        topic,
        sourceArn: `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:${refOf(t, id)}`,
      })),
  );
  const rules = idsOfType(t, 'AWS::Events::Rule').flatMap((id) =>
    ((t.Resources[id].Properties?.Targets as { Arn: string }[] | undefined) ?? [])
      .filter((x) => topics.has(x.Arn))
      .map((x) => ({ id, principal: EVENTS, topic: x.Arn, sourceArn: arnOf(t, id) })),
  );
  return [...alarms, ...rules];
}

/** Why SNS or KMS refuses the publish, or undefined when it goes through. */
async function refused(authz: TemplateAuthorizer, t: ResolvedTemplate, p: Publisher, account = ACCOUNT) {
  const source = { 'aws:SourceArn': p.sourceArn, 'aws:SourceAccount': account };
  const sns = await authz.deniedBecause(p.principal, { action: 'sns:Publish', resource: p.topic, context: source });
  if (sns) return `sns: ${sns}`;
  for (const k of topicKeyRequests(t, p.topic)) {
    // EventBridge's KMS requests for an encrypted topic carry no aws:SourceArn / aws:SourceAccount.
    const context = p.principal === EVENTS ? k.context : { ...k.context, ...source };
    const why = await authz.deniedBecause(p.principal, { ...k, context });
    if (why) return `${k.action}: ${why}`;
  }
  return undefined;
}

describe('alarms and rules that publish to the topic, decided by the synthesized topic and key policies', () => {
  const template = synthesizedTemplate();
  const authz = new TemplateAuthorizer(template);
  const all = publishers(template);

  it('every dead-letter queue and the failed executions alarm, and the failed-execution rule, publish to the topic', () => {
    const queues = idsOfType(template, 'AWS::SQS::Queue').length;
    expect(all.filter((p) => p.principal === CLOUDWATCH).length).toBeGreaterThanOrEqual(queues + 1);
    expect(all.filter((p) => p.principal === EVENTS).length).toBeGreaterThanOrEqual(1);
  });

  it.each(all.map((p) => [p.id, p] as const))('%s may publish, key included', async (_id, p) => {
    expect(await refused(authz, template, p)).toBeUndefined();
  });

  it('an alarm of another account is refused (the topic and the key name this account)', async () => {
    const alarm = all.find((p) => p.principal === CLOUDWATCH) as Publisher;
    const elsewhere = { ...alarm, sourceArn: alarm.sourceArn.replace(ACCOUNT, '444455556666') };
    expect(await refused(authz, template, elsewhere, '444455556666')).toMatch(/^sns: /);
  });

  it('a rule the topic policy does not name is refused', async () => {
    const rule = all.find((p) => p.principal === EVENTS) as Publisher;
    expect(await refused(authz, template, { ...rule, sourceArn: `${rule.sourceArn}-other` })).toMatch(/^sns: /);
  });
});
