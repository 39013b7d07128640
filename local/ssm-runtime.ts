import { ACCOUNT, type ResolvedTemplate, refOf } from './template.js';

/** What a node answers to one SSM document run. */
export interface NodeCommandAnswer {
  /** Final GetCommandInvocation status (Success, Failed, Undeliverable ...). */
  readonly status: string;
  readonly stdout: string;
  readonly stderr?: string;
  /** Polls answering InProgress before the final status. */
  readonly pollsBeforeDone?: number;
  /** Polls GetCommandInvocation still answers InProgress after the status-change event (it lags the event). */
  readonly lagsEventBy?: number;
}

/** A node as SSM sees it: managed or not, and how it answers each document. */
export interface LocalNodeBehaviour {
  readonly managed: boolean;
  /** Called for each SendCommand; `n` counts runs of that document. */
  run(
    document: string,
    parameters: Record<string, string[]>,
    n: number,
  ): NodeCommandAnswer | Promise<NodeCommandAnswer>;
}

/** GetCommandInvocation returns at most the first 24,000 characters of stdout and stderr. */
export const INVOCATION_OUTPUT_LIMIT = 24_000;

/** An error as a Step Functions aws-sdk integration reports it: `Ssm.<Exception>`. */
export const ssmTaskError = (exception: string, message: string) =>
  Object.assign(new Error(message), { name: `Ssm.${exception}` });

interface DocumentParameter {
  readonly type?: string;
  readonly default?: string;
  readonly allowedPattern?: string;
  readonly allowedValues?: string[];
}

/** The SSM documents of a template, by the name SendCommand uses. */
export function documentsOf(t: ResolvedTemplate): Map<string, Record<string, DocumentParameter>> {
  const out = new Map<string, Record<string, DocumentParameter>>();
  for (const [id, r] of Object.entries(t.Resources)) {
    if (r.Type !== 'AWS::SSM::Document') continue;
    const content = r.Properties?.Content as { parameters?: Record<string, DocumentParameter> };
    out.set(refOf(t, id), content.parameters ?? {});
  }
  return out;
}

/**
 * What SendCommand refuses before any node runs anything (InvalidDocument, InvalidParameters): an
 * unknown document, an undeclared parameter, a missing required one, a String given several values,
 * a value outside `allowedValues` or not matching `allowedPattern`.
 */
export function admitCommand(
  documents: Map<string, Record<string, DocumentParameter>>,
  document: string,
  parameters: Record<string, string[]>,
): void {
  const declared = documents.get(document);
  if (!declared) throw ssmTaskError('InvalidDocumentException', `Document ${document} does not exist in your account`);
  for (const name of Object.keys(parameters)) {
    if (!declared[name])
      throw ssmTaskError('InvalidParametersException', `Parameter "${name}" is not declared in document ${document}`);
  }
  for (const [name, p] of Object.entries(declared)) {
    const values = parameters[name] ?? (p.default === undefined ? undefined : [p.default]);
    if (!values) throw ssmTaskError('InvalidParametersException', `Parameter "${name}" is required`);
    if ((p.type ?? 'String') === 'String' && values.length !== 1)
      throw ssmTaskError('InvalidParametersException', `Parameter "${name}" takes one value`);
    for (const v of values) {
      if (p.allowedValues && !p.allowedValues.includes(v))
        throw ssmTaskError(
          'InvalidParametersException',
          `Parameter "${name}" "${v}" failed to satisfy constraint: Member must be one of ${p.allowedValues.join(', ')}`,
        );
      if (p.allowedPattern && !new RegExp(p.allowedPattern).test(v))
        throw ssmTaskError(
          'InvalidParametersException',
          `Parameter "${name}" "${v}" failed to satisfy constraint: allowedPattern ${p.allowedPattern}`,
        );
    }
  }
}

export interface SendInput {
  readonly DocumentName: string;
  readonly InstanceIds: string[];
  readonly Parameters?: Record<string, string[]>;
}

export interface SentCommand {
  readonly document: string;
  readonly parameters: Record<string, string[]>;
}

/** Run Command against one local node: SendCommand admits and runs, GetCommandInvocation polls. */
export class LocalRunCommand {
  readonly commands: SentCommand[] = [];
  private readonly runs = new Map<string, number>();
  private readonly invocations = new Map<
    string,
    { answer: NodeCommandAnswer; polls: number; instanceId: string; document: string }
  >();

  constructor(
    private readonly documents: Map<string, Record<string, DocumentParameter>>,
    private readonly node: LocalNodeBehaviour,
    /** What happens on the node after the script (its own AWS calls, e.g. the collect-logs upload). */
    private readonly onNode: (input: SendInput, answer: NodeCommandAnswer) => Promise<NodeCommandAnswer> = async (
      _i,
      a,
    ) => a,
  ) {}

  async send(input: SendInput) {
    const parameters = input.Parameters ?? {};
    admitCommand(this.documents, input.DocumentName, parameters);
    if (!this.node.managed)
      throw ssmTaskError(
        'InvalidInstanceIdException',
        `Instances [[${input.InstanceIds[0]}]] not in a valid state for account ${ACCOUNT}`,
      );
    this.commands.push({ document: input.DocumentName, parameters });
    const n = (this.runs.get(input.DocumentName) ?? 0) + 1;
    this.runs.set(input.DocumentName, n);
    const answer = await this.onNode(input, await this.node.run(input.DocumentName, parameters, n));
    const id = `${String(this.commands.length).padStart(8, '0')}-aaaa-bbbb-cccc-0123456789ab`;
    this.invocations.set(id, { answer, polls: 0, instanceId: input.InstanceIds[0], document: input.DocumentName });
    return { Command: { CommandId: id, DocumentName: input.DocumentName, Status: 'Pending' } };
  }

  /**
   * The command as it ends on the node, if it ends within `polls` poll intervals of being sent: its
   * final status, node and document (what Run Command's status-change event reports); from then on
   * GetCommandInvocation answers the final status too. Undefined while it would still run.
   */
  finish(commandId: string, polls: number): { status: string; instanceId: string; document: string } | undefined {
    const inv = this.invocations.get(commandId);
    if (!inv) return undefined;
    const needed = inv.answer.pollsBeforeDone ?? 0;
    if (needed > polls) return undefined;
    inv.polls = needed - (inv.answer.lagsEventBy ?? 0);
    return { status: inv.answer.status, instanceId: inv.instanceId, document: inv.document };
  }

  get(input: { CommandId: string; InstanceId: string }) {
    const inv = this.invocations.get(input.CommandId);
    if (!inv) throw ssmTaskError('InvocationDoesNotExistException', 'invocation does not exist');
    inv.polls++;
    const done = inv.polls > (inv.answer.pollsBeforeDone ?? 0);
    const status = done ? inv.answer.status : 'InProgress';
    return {
      CommandId: input.CommandId,
      InstanceId: input.InstanceId,
      Status: status,
      StatusDetails: status,
      ResponseCode: done ? (status === 'Success' ? 0 : 1) : -1,
      StandardOutputContent: done ? inv.answer.stdout.slice(0, INVOCATION_OUTPUT_LIMIT) : '',
      StandardErrorContent: done ? (inv.answer.stderr ?? '').slice(0, INVOCATION_OUTPUT_LIMIT) : '',
    };
  }
}
