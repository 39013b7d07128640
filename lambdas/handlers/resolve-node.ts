import { IAMClient } from '@aws-sdk/client-iam';
import * as z from 'zod/mini';
import { sdkClient } from '../aws/checks/handler-kit.js';
import { type NodeContext, resolveNode } from '../aws/checks/node-context.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';

const ec2 = new Ec2QueryClient();
const iam = sdkClient(IAMClient);
const input = z.object({
  node: z.string().check(z.regex(/^(i-[0-9a-f]{8,17}|[a-z0-9][a-z0-9.-]{0,252})$/)),
  cluster: z.string().check(z.minLength(1)),
});

/** Node name or instance id of the incident's cluster → instance, node group, role, subnet, security groups, AMI. */
export const handler = async (event: unknown): Promise<NodeContext> => {
  const i = input.parse(event);
  return resolveNode(ec2, iam, i.node, i.cluster);
};
