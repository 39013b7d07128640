import { makeCheckHandler } from '../aws/checks/handler-kit.js';

/** Account checks, group "changes" (see lambdas/aws/checks/groups.ts). */
export const handler = makeCheckHandler('changes');
