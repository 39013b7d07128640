import { changeIndexFromEnv } from '../aws/checks/change-index-client.js';
import { runChangesGroup } from '../aws/checks/changes-group.js';
import { checkHandler } from '../aws/checks/handler-kit.js';

/** Account checks, group "changes": the change index only (DynamoDB). */
export const handler = checkHandler('changes', runChangesGroup, { changes: changeIndexFromEnv() });
