import { SFNClient } from '@aws-sdk/client-sfn';
import { documentClient, logger, tracer, withPowertools, workflowConfig } from '../aws/runtime/workflow-runtime.js';
import {
  awaitCommand,
  type CommandWaitDeps,
  commandStatusChanged,
  commandWaitInputSchema,
} from '../aws/workflow/command-wait.js';
import '../core/text/zod-english.js';
import { readEnvironment } from '../aws/runtime/environment.js';

/**
 * "Door: await command" (waitForTaskToken) and the rule on Run Command's status-change events: the
 * completion of a node command resumes the workflow (lambdas/aws/workflow/command-wait.ts).
 */
export const createHandler = (deps: () => Promise<CommandWaitDeps>) =>
  withPowertools(commandWaitInputSchema, async (input) => {
    const r =
      'detail' in input ? await commandStatusChanged(input, await deps()) : await awaitCommand(input, await deps());
    logger.info('command wait', { ...r, side: 'detail' in input ? 'event' : 'await' });
    return r;
  });

// Fails at start-up, naming the variable, when the configuration store's variables are missing.
readEnvironment('command-wait');
const sfn = tracer.captureAWSv3Client(new SFNClient({ maxAttempts: 6 }));

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  tableName: (await workflowConfig()).tableName,
  sfn,
  now: Date.now,
}));
