import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PodDoctor, type PodDoctorProps } from '../../lib/pod-doctor.js';
import { identityStatements } from '../support/iam.js';

/**
 * The door in the deployed stack, read from the synthesized template: the state machine's graph
 * (every change enters through the door's one Task, every path ends recorded and notified, one poll
 * loop, about 50 states) and the roles (only the door's role holds a write on a node, the account or
 * the cluster; only its access entry maps to the Kubernetes write group).
 */

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;
interface AslState {
  readonly Type: string;
  readonly Next?: string;
  readonly Default?: string;
  readonly End?: boolean;
  readonly Resource?: string;
  readonly ResultPath?: string;
  readonly Parameters?: Record<string, unknown>;
  readonly Choices?: readonly { readonly Next: string; readonly Variable?: string; readonly StringEquals?: string }[];
  readonly Catch?: readonly { readonly Next: string }[];
  readonly Branches?: readonly { readonly StartAt: string; readonly States: Record<string, AslState> }[];
}
interface Definition {
  readonly StartAt: string;
  readonly States: Record<string, AslState>;
}

/** A CloudFormation string (literal or Fn::Join) with every token replaced by its logical id (or TOKEN). */
function flatten(v: unknown): string {
  if (typeof v === 'string') return v;
  const join = (v as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return 'TOKEN';
  return join[1]
    .map((p) => (typeof p === 'string' ? p : ((p as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt']?.[0] ?? 'TOKEN')))
    .join(join[0]);
}

function build(props: PodDoctorProps) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
  new PodDoctor(stack, 'PodDoctor', props);
  const json = Template.fromStack(stack).toJSON() as { Resources: Resources };
  const resources = json.Resources;
  const [machine] = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::StepFunctions::StateMachine');
  const definition = JSON.parse(flatten(resources[machine].Properties.DefinitionString)) as Definition;
  const fn = (pattern: RegExp) =>
    Object.keys(resources).find((id) => resources[id].Type === 'AWS::Lambda::Function' && pattern.test(id)) as string;
  return { json, resources, definition, fn };
}

/** Every state of a definition, nested (Parallel branches) included. */
function allStates(states: Record<string, AslState>): [string, AslState][] {
  return Object.entries(states).flatMap(([n, s]) => [
    [n, s] as [string, AslState],
    ...(s.Branches ?? []).flatMap((b) => allStates(b.States)),
  ]);
}

/** The states a state may go to next (Next, Choices, Default, Catch). */
const successors = (s: AslState): string[] =>
  [s.Next, s.Default, ...(s.Choices ?? []).map((c) => c.Next), ...(s.Catch ?? []).map((c) => c.Next)].filter(
    (x): x is string => x !== undefined,
  );

const RETURN_TO = '$.door.call.returnTo';

/**
 * Where a state may go next on a path whose last door call said `returnTo`: the door's return
 * dispatch (a Choice on $.door.call.returnTo) goes back to that caller only (its Default when no
 * choice names it), as it does when it runs; every other state to all its successors.
 */
function nextOnPath(s: AslState, returnTo: string | undefined): string[] {
  const dispatch = (s.Choices ?? []).filter((c) => c.Variable === RETURN_TO);
  if (s.Type !== 'Choice' || dispatch.length === 0) return successors(s);
  const back = dispatch.find((c) => c.StringEquals === returnTo);
  return [back?.Next ?? (s.Default as string)];
}

/**
 * The top-level states reachable from StartAt without entering any of `removed`, path by path: a
 * "<caller>: request" sets where the door returns (its Parameters.returnTo), so the door's return
 * dispatch leads back to the caller of the path, not to every caller (a graph read without that
 * would let the door return to the write-back before anything was summarized).
 */
function reachable(d: Definition, removed: ReadonlySet<string> = new Set()): Set<string> {
  const seen = new Set<string>();
  const names = new Set<string>();
  const todo: [string, string | undefined][] = removed.has(d.StartAt) ? [] : [[d.StartAt, undefined]];
  while (todo.length) {
    const [n, ctx] = todo.pop() as [string, string | undefined];
    if (seen.has(`${n}|${ctx}`)) continue;
    seen.add(`${n}|${ctx}`);
    names.add(n);
    const s = d.States[n];
    const call = s.Type === 'Pass' && s.ResultPath === '$.door.call' ? s.Parameters?.returnTo : undefined;
    const next = typeof call === 'string' ? call : ctx;
    for (const m of nextOnPath(s, ctx)) if (!removed.has(m)) todo.push([m, next]);
  }
  return names;
}

const functionOf = (s: AslState) => flatten(s.Parameters?.FunctionName ?? s.Resource ?? '');

const FULL_CLUSTER: PodDoctorProps = {
  clusters: [
    {
      name: 'prod-eu',
      remediation: {
        roles: ['eks-node-role'],
        endpointSecurityGroups: ['sg-0fedcba9876543210'],
        subnets: ['subnet-0a1b2c3d4e5f67890'],
        pullThroughCache: {
          credentialArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ecr-pullthroughcache/hub-Xy12Ab',
        },
        vpcCniAddon: true,
      },
    },
  ],
  remedies: { 'cni-permissions': 'auto', 'cidr-fragmentation': 'dry-run' },
};

/** Services pod-doctor acts on; a verb of theirs that is not a read changes something. */
const ACTED_ON = /^(ec2|iam|ecr|eks|ssm|autoscaling|ecr-public):/;
const READ = /^[a-z0-9-]+:(Describe|Get|List|BatchGet|Simulate|Validate)[A-Z]/;

describe.each([
  ['a fully configured cluster', FULL_CLUSTER, 'door-remedies'],
  ['a cluster without remediation scope', { clusters: [{ name: 'prod-eu' }] }, 'door'],
])('the door in the deployed stack (%s)', (_, props, bundle) => {
  const { json, resources, definition, fn } = build(props);
  const doorFunction = fn(/DoorFunction/);
  const states = allStates(definition.States);
  const doorTasks = states.filter(([, s]) => s.Type === 'Task' && functionOf(s).includes(doorFunction));

  it('has about 50 states, one poll loop, no finding read by position', () => {
    expect(states.length).toBeLessThanOrEqual(55);
    const waits = states.filter(([, s]) => s.Type === 'Wait');
    expect(waits.filter(([, s]) => s.Next === 'Door').map(([n]) => n)).toEqual(['Door: wait']);
    // Positions only where the Parallel names its branches' results, and "is the list non-empty".
    const positional = [...JSON.stringify(definition).matchAll(/"([^"]*\$[\w.]*\[\d+\][^"]*)"/g)].map((m) => m[1]);
    expect(new Set(positional)).toEqual(
      new Set([
        ...['$[0]', '$[1]', '$[2]', '$[3]', '$[4]', '$[5]'],
        '$.door.last.evictions.evictedPods[0]',
        '$.diagnosis.kubernetes.stuckPods[0]',
      ]),
    );
  });

  it('the door function is invoked by exactly one Task, "Door"; no Task calls an AWS API that changes anything', () => {
    expect(doorTasks.map(([n]) => n)).toEqual(['Door']);
    const integrations = new Set(
      states
        .filter(([, s]) => s.Type === 'Task')
        .map(([, s]) => /:states:::(.+)$/.exec(s.Resource ?? '')?.[1] ?? 'lambda (function ARN)'),
    );
    expect([...integrations].sort()).toEqual([
      'lambda (function ARN)',
      'lambda:invoke',
      'lambda:invoke.waitForTaskToken',
      'sns:publish',
    ]);
  });

  it('every way into the door is a "<caller>: request" that sets $.door.call, or the door\'s own poll, ask and answer', () => {
    const into = states.filter(([, s]) => successors(s).includes('Door')).map(([n, s]) => [n, s] as const);
    const own = ['Door: wait', 'Door: await command', 'Door: ask', 'Door: no answer'];
    for (const [n, s] of into) {
      if (own.includes(n)) continue;
      expect(n, n).toMatch(/: request$/);
      expect(s.Type, n).toBe('Pass');
      expect(s.ResultPath, n).toBe('$.door.call');
      expect(Object.keys(s.Parameters ?? {}).sort(), n).toEqual(expect.arrayContaining(['slot', 'returnTo']));
    }
    expect(into.filter(([n]) => !own.includes(n)).length).toBeGreaterThanOrEqual(5);
    // The door's own states are reached only through the door: without it, none is reachable.
    const withoutDoor = reachable(definition, new Set(['Door']));
    expect([...withoutDoor].filter((n) => own.includes(n) || n === 'Door: next?')).toEqual([]);
  });

  it('every path ends recorded and notified (the one exception: a duplicate of a running execution)', () => {
    const terminals = Object.entries(definition.States)
      .filter(([, s]) => s.Type === 'Succeed' || s.Type === 'Fail' || s.End)
      .map(([n]) => n);
    const recorders = ['Summarize', 'Record failure'];
    const notifiers = Object.entries(definition.States)
      .filter(([, s]) => (s.Resource ?? '').endsWith(':sns:publish'))
      .map(([n]) => n);
    expect(notifiers.sort()).toEqual(['Notify', 'Notify bare failure', 'Notify failure']);
    const unrecorded = reachable(definition, new Set(recorders));
    const unnotified = reachable(definition, new Set(notifiers));
    const exceptions = ['Duplicate: another execution handles this incident'];
    for (const t of terminals.filter((x) => !exceptions.includes(x))) {
      expect(unrecorded.has(t), `${t} reachable without a record`).toBe(false);
      expect(unnotified.has(t), `${t} reachable without a notice`).toBe(false);
    }
    expect(terminals).toEqual(expect.arrayContaining(exceptions));
    // Not vacuous: a plan that skipped Summarize for the write-back would close the incident unrecorded.
    const skipping = structuredClone(definition);
    (skipping.States['Act, ask or report?'] as { Default?: string }).Default = 'Report to cluster: request';
    expect(reachable(skipping, new Set(recorders)).has('Incident closed')).toBe(true);
    // Every Task outside the Parallel's branches has a Catch: an error cannot leave the graph unrecorded.
    for (const [n, s] of Object.entries(definition.States))
      if (s.Type === 'Task' || s.Type === 'Parallel') expect(s.Catch?.length, n).toBeGreaterThan(0);
  });

  it("only the door's role holds a write on a node, the account or the cluster", () => {
    const doorRole = (resources[doorFunction].Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const roleOf = (policyId: string) =>
      resources[policyId].Type === 'AWS::IAM::Role'
        ? [policyId]
        : ((resources[policyId].Properties.Roles as { Ref: string }[] | undefined) ?? []).map((r) => r.Ref);
    const writes = identityStatements(json)
      .filter((s) => s.Effect === 'Allow')
      .flatMap((s) => s.Action.filter((a) => ACTED_ON.test(a) && !READ.test(a)).map((a) => [a, s.logicalId] as const));
    expect(writes.map(([a]) => a)).toContain('ssm:SendCommand');
    for (const [action, policy] of writes) expect(roleOf(policy), action).toEqual([doorRole]);
    // The Kubernetes write group: only the door's access entry maps to it.
    const entries = Object.values(resources).filter((r) => r.Type === 'AWS::EKS::AccessEntry');
    const writers = entries.filter((r) =>
      ((r.Properties.KubernetesGroups as string[] | undefined) ?? []).includes('pod-doctor-actions'),
    );
    expect(writers.length).toBeGreaterThan(0);
    for (const w of writers) expect(JSON.stringify(w.Properties.PrincipalArn)).toContain(`"${doorRole}"`);
  });

  it(`runs the ${bundle} bundle: the account remedies' code only where their grants are`, () => {
    const meta = (resources[doorFunction] as { Metadata?: { PodDoctorHandler?: string } }).Metadata;
    expect(meta?.PodDoctorHandler).toBe(bundle);
  });
});
