import { checkHandler } from '../aws/checks/handler-kit.js';
import { runNetworkGroup } from '../aws/checks/network-group.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';

/** Account checks, group "network": EC2 only (endpoints, security groups, route tables, subnet usage). */
export const handler = checkHandler('network', runNetworkGroup, { ec2: new Ec2QueryClient() });
