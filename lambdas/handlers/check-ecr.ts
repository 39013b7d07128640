import { makeCheckHandler } from '../aws/checks/handler-kit.js';

/** Account checks, group "ecr" (see lambdas/aws/checks/groups.ts). */
export const handler = makeCheckHandler('ecr');
