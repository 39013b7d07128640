import { ExecutionAlreadyExists, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';

/**
 * Starts the incident workflow once per incident: the execution name is the incident id, so a retry
 * (or a second invocation that joined the same incident) gets the same execution, not a new one.
 */
export class WorkflowStarter {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async start(incidentId: string, input: string): Promise<string> {
    try {
      const r = await this.sfn.send(
        new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name: incidentId, input }),
      );
      return r.executionArn ?? '';
    } catch (e) {
      // Same name, different input: the incident's execution already exists; that is the goal.
      if (e instanceof ExecutionAlreadyExists) {
        return `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${incidentId}`;
      }
      throw e;
    }
  }
}
