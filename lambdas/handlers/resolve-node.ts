import { IAMClient } from '@aws-sdk/client-iam';
import * as z from 'zod/mini';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import type { Ec2Client } from '../aws/ec2/commands.js';
import { type NodeContext, resolveNode } from '../aws/readers/account/node-context.js';
import { fleetFromEnv, memberReads, type ReadSite } from '../aws/runtime/member-reads.js';
import { withPowertools } from '../aws/runtime/powertools.js';
import { sdkAssume } from '../aws/runtime/sdk-assume.js';
import { CLIENT_OPTIONS, sdkClient } from '../aws/runtime/sdk-client.js';
import '../core/text/zod-english.js';
import { readEnvironment } from '../aws/runtime/environment.js';

const env = readEnvironment('resolve-node');

export const resolveNodeEventSchema = z.object({
  node: z.string().check(z.regex(/^(i-[0-9a-f]{8,17}|[a-z0-9][a-z0-9.-]{0,252})$/)),
  cluster: z.string().check(z.minLength(1)),
  /** A fleet member's incident: its account (empty or absent: this account's), Region and id. */
  account: z.optional(z.string().check(z.regex(/^(\d{12})?$/))),
  region: z.optional(z.string().check(z.regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/))),
  incidentId: z.optional(z.string().check(z.maxLength(256))),
});

export interface ResolveNodeDeps {
  readonly ec2: Ec2Client;
  readonly iam: IAMClient;
}

/** Node name or instance id of the incident's cluster → instance, node group, role, subnet, security groups, AMI. */
export const createHandler = (deps: ResolveNodeDeps | ((site: ReadSite) => Promise<ResolveNodeDeps>)) =>
  withPowertools(resolveNodeEventSchema, async (i): Promise<NodeContext> => {
    const site = {
      region: i.region ?? env.AWS_REGION,
      account: i.account,
      incidentId: i.incidentId,
    };
    const c = typeof deps === 'function' ? await deps(site) : deps;
    return resolveNode(c.ec2, c.iam, i.node, i.cluster);
  });

// A fleet member's incident: the node is the member's, read through its read role.
export const handler = createHandler(
  memberReads<ResolveNodeDeps>(
    { ec2: new Ec2QueryClient(), iam: sdkClient(IAMClient) },
    {
      fleet: fleetFromEnv(env),
      assume: sdkAssume(env.AWS_REGION),
      purpose: 'resolve-node',
      make: ({ region }, credentials) => ({
        ec2: new Ec2QueryClient({ region, credentials }),
        iam: new IAMClient({ ...CLIENT_OPTIONS, region, credentials }),
      }),
    },
  ),
);
