import { EC2Client } from '@aws-sdk/client-ec2';
import { checkHandler, sdkClient } from '../aws/checks/handler-kit.js';
import { runNetworkGroup } from '../aws/checks/network-group.js';

/** Account checks, group "network": EC2 only (endpoints, security groups, route tables, subnet usage). */
export const handler = checkHandler('network', runNetworkGroup, { ec2: sdkClient(EC2Client) });
