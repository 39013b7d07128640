import { createDoorHandler, doorDeps } from '../aws/door/door-runtime.js';

/**
 * The door: one step of the door's states for the request the workflow calls it with. The only
 * function with mutating clients: SendCommand and the Kubernetes writes through its own access entry.
 * Where a cluster has a remediation scope the stack deploys door-remedies instead: this door and the
 * account remedies' writes, whose grants only it holds.
 */
export const createHandler = createDoorHandler;
export const handler = createDoorHandler(doorDeps);
