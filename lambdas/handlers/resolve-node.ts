import { IAMClient } from '@aws-sdk/client-iam';
import * as z from 'zod/mini';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import type { Ec2Client } from '../aws/ec2/commands.js';
import { type NodeContext, resolveNode } from '../aws/readers/account/node-context.js';
import { withPowertools } from '../aws/runtime/powertools.js';
import { sdkClient } from '../aws/runtime/sdk-client.js';
import '../core/text/zod-english.js';

export const resolveNodeEventSchema = z.object({
  node: z.string().check(z.regex(/^(i-[0-9a-f]{8,17}|[a-z0-9][a-z0-9.-]{0,252})$/)),
  cluster: z.string().check(z.minLength(1)),
});

export interface ResolveNodeDeps {
  readonly ec2: Ec2Client;
  readonly iam: IAMClient;
}

/** Node name or instance id of the incident's cluster → instance, node group, role, subnet, security groups, AMI. */
export const createHandler = (deps: ResolveNodeDeps) =>
  withPowertools(
    resolveNodeEventSchema,
    async (i): Promise<NodeContext> => resolveNode(deps.ec2, deps.iam, i.node, i.cluster),
  );

export const handler = createHandler({ ec2: new Ec2QueryClient(), iam: sdkClient(IAMClient) });
