import { describe, expect, it } from 'vitest';
import { statusChangeEvent } from '../../local/command-completion.js';
import { matchesEventPattern } from '../../local/event-pattern.js';
import { DOCUMENTS, definitionOf } from '../../local/local-workflow.js';
import { arnOf, idsOfType, refOf, synthesizedTemplate } from '../../local/template.js';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

const template = synthesizedTemplate();
const [ruleId] = idsOfType(template, 'AWS::Events::Rule').filter((id) =>
  JSON.stringify(template.Resources[id].Properties?.EventPattern ?? {}).includes('aws.ssm'),
);
const rule = template.Resources[ruleId].Properties as {
  EventPattern: Record<string, unknown>;
  Targets: { Arn: string; RetryPolicy?: unknown; DeadLetterConfig?: unknown }[];
};
const fnId = idsOfType(template, 'AWS::Lambda::Function').find(
  (id) => template.Resources[id].Metadata?.PodDoctorHandler === 'command-wait',
) as string;
const fnArn = arnOf(template, fnId);
const roleRef = template.raw[fnId].Properties?.Role as { 'Fn::GetAtt': [string] };
const roleName = refOf(template, roleRef['Fn::GetAtt'][0]);
/** Every Allow statement of the policies attached to the command-wait function's role. */
const statements = idsOfType(template, 'AWS::IAM::Policy')
  .map((id) => template.Resources[id].Properties as { Roles: string[]; PolicyDocument: { Statement: Statement[] } })
  .filter((p) => p.Roles.includes(roleName))
  .flatMap((p) => p.PolicyDocument.Statement);
const event = (document: string, status: string) =>
  statusChangeEvent({ commandId: 'e8d3c0e4-71f7-4491-898f-c9b35bee5f3b', instanceId: 'i-9bb89e2b', document, status });

describe("Run Command's status-change events resume the workflow (no poll waits)", () => {
  it("the rule takes the final status of pod-doctor's own documents only", () => {
    for (const doc of Object.values(DOCUMENTS))
      for (const status of ['Success', 'Failed', 'TimedOut', 'Cancelled'])
        expect(matchesEventPattern(rule.EventPattern, event(doc, status)), `${doc} ${status}`).toBe(true);
    expect(matchesEventPattern(rule.EventPattern, event(DOCUMENTS.probeNode, 'InProgress'))).toBe(false);
    expect(matchesEventPattern(rule.EventPattern, event('AWS-RunShellScript', 'Success'))).toBe(false);
    expect(matchesEventPattern(rule.EventPattern, { ...event(DOCUMENTS.probeNode, 'Success'), source: 'my.app' })).toBe(
      false,
    );
  });

  it('targets the command-wait function, which "Door: await command" hands its task token, with retries and a DLQ', () => {
    expect(rule.Targets.map((t) => t.Arn)).toEqual([fnArn]);
    expect(rule.Targets[0].RetryPolicy).toEqual({ MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 1800 });
    expect(rule.Targets[0].DeadLetterConfig).toBeDefined();
    const task = (definitionOf(template).States as Record<string, Record<string, unknown>>)['Door: await command'];
    expect(task.Resource).toMatch(/:states:::lambda:invoke\.waitForTaskToken$/);
    expect((task.Parameters as { FunctionName: string }).FunctionName).toBe(fnArn);
    // A lost event times out at the longest command's budget (collect-logs 600 s + 60 s); the door checks once.
    expect(task.TimeoutSeconds).toBe(660);
    expect((task.Catch as { ErrorEquals: string[]; Next: string }[])[0]).toMatchObject({
      ErrorEquals: ['States.Timeout'],
      Next: 'Door',
    });
  });

  it('its role writes only the COMMAND# rendezvous items and resumes only this state machine', () => {
    // Besides its log group, X-Ray and its dead-letter queue: the configuration (read), the rendezvous, the resume.
    const actions = statements.flatMap((s) => [s.Action].flat()).filter((a) => !/^(xray|logs):/.test(a));
    expect(new Set(actions)).toEqual(
      new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'states:SendTaskSuccess', 'sqs:SendMessage']),
    );
    const update = statements.find((s) => [s.Action].flat().includes('dynamodb:UpdateItem'));
    expect(update?.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['COMMAND#*'] } });
    const resume = statements.find((s) => [s.Action].flat().includes('states:SendTaskSuccess'));
    const [sm] = idsOfType(template, 'AWS::StepFunctions::StateMachine');
    expect(resume?.Resource).toBe(refOf(template, sm));
  });
});
