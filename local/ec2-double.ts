import type { Ec2Client, Ec2Command, Ec2CommandClass } from '../lambdas/aws/ec2/commands.js';
import { UnmappedCallError } from './guard.js';

type Answer<I, O> = (input: I) => O | Promise<O>;

/**
 * The recorded account's EC2, answering the lean EC2 client's commands (lambdas/aws/ec2) at `send`,
 * where aws-sdk-client-mock answers the SDK clients: `on(Command).callsFake(answer)`. A command
 * nobody answers is refused (aws-sdk-client-mock would answer `undefined`). `guard()` wraps `send`
 * as it wraps the SDK clients', so every call is authorised against the template first.
 */
export class Ec2Double implements Ec2Client {
  private readonly answers = new Map<string, Answer<object, object>>();
  /** Every command sent, in order. */
  readonly calls: Ec2Command<object, object>[] = [];

  on<I extends object, O extends object>(command: Ec2CommandClass<I, O> & { readonly action: string }) {
    return {
      callsFake: (answer: Answer<I, Partial<O> & object>) => {
        this.answers.set(command.action, answer as Answer<object, object>);
      },
    };
  }

  async send<I extends object, O extends object>(command: Ec2Command<I, O>): Promise<O> {
    this.calls.push(command);
    const answer = this.answers.get(command.action);
    if (!answer) throw new UnmappedCallError(`the recorded account does not answer ec2:${command.action}`);
    return (await answer(command.input)) as O;
  }
}
