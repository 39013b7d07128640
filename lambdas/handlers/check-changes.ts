import { changeIndexIn } from '../aws/checks/change-index-client.js';
import { runChangesGroup } from '../aws/checks/changes-group.js';
import { createCheckHandler } from '../aws/checks/handler-kit.js';
import type { CheckClients } from '../aws/readers/account/check-input.js';
import { readEnvironment } from '../aws/runtime/environment.js';

/** Account checks, group "changes": the change index only (DynamoDB). */
export const createHandler = (deps: Pick<CheckClients, 'changes'>, now?: () => Date) =>
  createCheckHandler('changes', runChangesGroup, deps, now);

export const handler = createHandler({ changes: changeIndexIn(readEnvironment('check-changes').CHANGE_TABLE_NAME) });
