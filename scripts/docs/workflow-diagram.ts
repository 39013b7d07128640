import { idsOfType, LOCAL_CONFIG, synthesizedTemplate } from '../../local/template.js';

/**
 * The workflow picture of docs/architecture.md, drawn from the state machine CDK synthesizes (not by
 * hand): every state, its transitions, Choice branches, Catch paths (dotted) and Parallel branches
 * (subgraphs), as a Mermaid flowchart GitHub renders.
 */

export interface State {
  readonly Type: string;
  readonly Next?: string;
  readonly End?: boolean;
  readonly Default?: string;
  readonly Choices?: readonly { readonly Next: string }[];
  readonly Catch?: readonly { readonly Next: string; readonly ErrorEquals: readonly string[] }[];
  readonly Branches?: readonly Machine[];
  readonly ItemProcessor?: Machine;
  readonly Iterator?: Machine;
}

export interface Machine {
  readonly StartAt: string;
  readonly States: Record<string, State>;
}

const SHAPES: Record<string, (label: string) => string> = {
  Choice: (l) => `{${l}}`,
  Succeed: (l) => `([${l}])`,
  Fail: (l) => `([${l}])`,
  Wait: (l) => `[/${l}/]`,
};

/** Mermaid flowchart lines of one machine (nested machines as subgraphs), ids prefixed by `scope`. */
function machineLines(machine: Machine, scope: string, lines: string[]): void {
  // Prefixed: Mermaid reads a bare `end` as the end of a subgraph.
  const id = (name: string) => `${scope}s_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
  const label = (name: string) => `"${name.replaceAll('"', '#quot;')}"`;
  lines.push(`  ${scope}start((start)) --> ${id(machine.StartAt)}`);
  for (const [name, state] of Object.entries(machine.States)) {
    lines.push(`  ${id(name)}${(SHAPES[state.Type] ?? ((l: string) => `[${l}]`))(label(name))}`);
    if (state.Next) lines.push(`  ${id(name)} --> ${id(state.Next)}`);
    for (const c of state.Choices ?? []) lines.push(`  ${id(name)} --> ${id(c.Next)}`);
    if (state.Default) lines.push(`  ${id(name)} -->|default| ${id(state.Default)}`);
    for (const c of state.Catch ?? []) lines.push(`  ${id(name)} -.->|${c.ErrorEquals.join(', ')}| ${id(c.Next)}`);
    const items = state.ItemProcessor ?? state.Iterator;
    const nested: [Machine, string][] = [
      ...(state.Branches ?? []).map((m): [Machine, string] => [m, `${name}: ${m.StartAt}`]),
      ...(items ? [[items, `${name}: each item`] as [Machine, string]] : []),
    ];
    nested.forEach(([m, title], i) => {
      const inner = `${id(name)}_${i}_`;
      lines.push(`  subgraph ${inner}sub [${label(title)}]`);
      machineLines(m, inner, lines);
      lines.push('  end');
      lines.push(`  ${id(name)} --> ${inner}sub`);
    });
  }
}

/** The Mermaid flowchart of a state machine definition. */
export function mermaidOf(definition: Machine): string {
  const lines = ['flowchart TD'];
  machineLines(definition, '', lines);
  return lines.join('\n');
}

/** The definition of the state machine pod-doctor synthesizes for `config` (the local runtime's default). */
export function synthesizedDefinition(config: unknown = LOCAL_CONFIG): Machine {
  const template = synthesizedTemplate(config);
  const [id] = idsOfType(template, 'AWS::StepFunctions::StateMachine');
  if (!id) throw new Error('no state machine in the synthesized template');
  return JSON.parse(String(template.Resources[id].Properties?.DefinitionString)) as Machine;
}

/** The diagram as the Markdown of the generated section (a fenced Mermaid block). */
export function workflowDiagramMarkdown(definition: Machine = synthesizedDefinition()): string {
  return `\`\`\`mermaid\n${mermaidOf(definition)}\n\`\`\``;
}
