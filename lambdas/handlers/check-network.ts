import { createCheckHandler } from '../aws/checks/handler-kit.js';
import { runNetworkGroup } from '../aws/checks/network-group.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import type { CheckClients } from '../aws/readers/account/check-input.js';

/** Account checks, group "network": EC2 only (endpoints, security groups, route tables, subnet usage). */
export const createHandler = (deps: Pick<CheckClients, 'ec2'>, now?: () => Date) =>
  createCheckHandler('network', runNetworkGroup, deps, now);

export const handler = createHandler({ ec2: new Ec2QueryClient() });
