import { z } from 'zod';
import { lazyClients } from '../aws/checks/handler-kit.js';
import { type NodeContext, resolveNode } from '../aws/checks/node-context.js';

const clients = lazyClients();
const input = z.object({
  node: z.string().regex(/^(i-[0-9a-f]{8,17}|[a-z0-9][a-z0-9.-]{0,252})$/),
  cluster: z.string().min(1),
});

/** Node name or instance id of the incident's cluster → instance, node group, role, subnet, security groups, AMI. */
export const handler = async (event: unknown): Promise<NodeContext> => {
  const i = input.parse(event);
  return resolveNode(clients.ec2, clients.iam, i.node, i.cluster);
};
