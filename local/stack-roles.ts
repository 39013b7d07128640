import { arnOf, idsOfType, type ResolvedTemplate } from './template.js';

type State = Record<string, unknown>;

/** Every state of a definition, branches and map iterators included. */
export function collectStates(def: Record<string, unknown>): [string, State][] {
  const out: [string, State][] = [];
  const walk = (states: Record<string, State>) => {
    for (const [name, s] of Object.entries(states)) {
      out.push([name, s]);
      for (const b of (s.Branches as { States: Record<string, State> }[] | undefined) ?? []) walk(b.States);
      const inner = (s.ItemProcessor ?? s.Iterator) as { States: Record<string, State> } | undefined;
      if (inner) walk(inner.States);
    }
  };
  walk(def.States as Record<string, State>);
  return out;
}

/**
 * Who is who in a synthesized stack: the state machine's role, the function each Task state
 * invokes, each function's execution role and environment, the function behind the function URL.
 */
export class StackRoles {
  private readonly states: Map<string, State>;

  constructor(
    private readonly template: ResolvedTemplate,
    definition: Record<string, unknown>,
  ) {
    this.states = new Map(collectStates(definition));
  }

  /** The state machine's execution role ARN. */
  stateMachineRole(): string {
    const [id] = idsOfType(this.template, 'AWS::StepFunctions::StateMachine');
    return String(this.template.Resources[id].Properties?.RoleArn);
  }

  /** The state `name` and its copies in VPCs ("<name> in vpc-…", issue 36) the definition has. */
  withCopies(name: string): string[] {
    return [...this.states.keys()].filter((s) => s === name || s.startsWith(`${name} in vpc-`));
  }

  /** Whether the definition has a state of this name. */
  has(state: string): boolean {
    return this.states.has(state);
  }

  /** The function ARN a Task state invokes (optimized integration or bare ARN). */
  functionOfState(state: string): string {
    const s = this.states.get(state);
    const fn = (s?.Parameters as { FunctionName?: string } | undefined)?.FunctionName ?? s?.Resource;
    if (typeof fn !== 'string' || !fn.includes(':function:'))
      throw new Error(`state ${state} invokes no Lambda function`);
    return fn.replace(/:\$LATEST$/, '');
  }

  /** A Task state's TimeoutSeconds (Step Functions' default for a task-token Task: none, so a year). */
  timeoutOf(state: string): number {
    return Number(this.states.get(state)?.TimeoutSeconds ?? 365 * 86_400);
  }

  /** Task parameters of a state as synthesized (after intrinsic resolution). */
  parametersOf(state: string): Record<string, unknown> {
    return (this.states.get(state)?.Parameters as Record<string, unknown> | undefined) ?? {};
  }

  private functionId(fnArn: string): string {
    const id = idsOfType(this.template, 'AWS::Lambda::Function').find((x) => arnOf(this.template, x) === fnArn);
    if (!id) throw new Error(`no function ${fnArn} in the template`);
    return id;
  }

  /** The handler a function runs (its PodDoctorHandler metadata: the bundle's entry name). */
  handlerOf(fnArn: string): string | undefined {
    const meta = (this.template.raw[this.functionId(fnArn)] as { Metadata?: { PodDoctorHandler?: string } }).Metadata;
    return meta?.PodDoctorHandler;
  }

  /** The execution role ARN of a function. */
  roleOf(fnArn: string): string {
    return String(this.template.Resources[this.functionId(fnArn)].Properties?.Role);
  }

  /** The environment variables of a function, resolved. */
  envOf(fnArn: string): Record<string, string> {
    const env = this.template.Resources[this.functionId(fnArn)].Properties?.Environment as
      | { Variables?: Record<string, string> }
      | undefined;
    return env?.Variables ?? {};
  }

  /** The function behind the (only) function URL, and that URL. */
  functionUrl(): { fn: string; url: string } {
    const [id] = idsOfType(this.template, 'AWS::Lambda::Url');
    if (!id) throw new Error('no function URL in the template');
    const p = this.template.Resources[id].Properties ?? {};
    const url = Object.values(this.template.Resources)
      .map((r) => (r.Properties?.Environment as { Variables?: Record<string, string> } | undefined)?.Variables)
      .map((v) => Object.values(v ?? {}).find((x) => /\.lambda-url\./.test(x)))
      .find(Boolean);
    return { fn: String(p.TargetFunctionArn), url: url ?? '' };
  }
}
