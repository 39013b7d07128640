import type { ECRClient } from '@aws-sdk/client-ecr';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { IAMClient } from '@aws-sdk/client-iam';
// zod/mini (tree-shaken to a few KB) instead of classic zod: these schemas need nothing more; its
// English messages (zod-english) say what a refused input lacks.
import * as z from 'zod/mini';
import type { ChangeReader } from '../../../core/cloudtrail/change-records.js';
import { FAILURE_CLASSES } from '../../../core/contract/failure-classes.js';
import type { Finding } from '../../../core/contract/findings.js';
import { type EcrImage, parseEcrImage } from '../../../core/contract/images.js';
import { CHECKS_FOR_CLASS } from '../../../core/policy/policy.js';
import '../../../core/text/zod-english.js';
import { CHECK_GROUPS, type CheckGroupName } from '../../../core/workflow/execution-state.js';

export { CHECK_GROUPS };
/** One of the account check groups (one read-only Lambda function each). */
export type CheckGroup = CheckGroupName;

import type { Ec2Client } from '../../ec2/commands.js';
import type { NodeContext } from './node-context.js';

/**
 * Clients the checks use (EC2 through the lean EC2 Query client). Each check function gets only the clients its group needs (`Pick`),
 * so its Lambda loads only those SDK packages. ECR is per region (images may live elsewhere).
 */
export interface CheckClients {
  readonly ec2: Ec2Client;
  readonly iam: IAMClient;
  readonly eks: EKSClient;
  /** The change index (breaking changes indexed as EventBridge delivered them). */
  readonly changes: ChangeReader;
  ecr(region: string): ECRClient;
}

const text = () => z.optional(z.string());

const nodeSchema = z.object({
  instanceId: z.string().check(z.regex(/^i-[0-9a-f]{8,17}$/)),
  privateDnsName: text(),
  clusterName: text(),
  nodegroupName: text(),
  instanceType: text(),
  architecture: text(),
  subnetId: text(),
  vpcId: text(),
  availabilityZone: text(),
  securityGroupIds: z._default(z.array(z.string()), []),
  privateIp: text(),
  amiId: text(),
  instanceProfileArn: text(),
  roleName: text(),
  roleArn: text(),
});

export const checkInputSchema = z.object({
  /** The resolved node; iam, network and eks checks need it, ecr and changes use it when present. */
  node: z.pipe(
    z.transform((v: unknown) => (v && typeof v === 'object' && 'instanceId' in v ? v : undefined)),
    z.optional(nodeSchema),
  ),
  cluster: z.string().check(z.minLength(1)),
  region: z.string().check(z.regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/)),
  image: text(),
  /** Incident entities (the image is taken from there when `image` is absent). */
  entities: z.optional(z.record(z.string(), z.string())),
  neededIps: z._default(z.number().check(z.int(), z.minimum(1)), 16),
  /**
   * The incident's class: a group the class does not need (or that needs a node the incident has
   * not) answers no finding at once. Absent (the CLI's diagnose): every check runs.
   */
  class: z.optional(z.enum(FAILURE_CLASSES)),
  lookbackHours: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(24 * 90)), 72),
});

export type CheckInput = z.output<typeof checkInputSchema>;

/** A check group: the checks of one Lambda function, with only the clients they call. */
export type GroupRunner<K extends keyof CheckClients> = (
  input: CheckInput,
  clients: Pick<CheckClients, K>,
  now: Date,
) => Promise<Finding[]>;

/** Thrown when a check group is called with input it cannot use (the workflow catches it by name). */
export class CheckInputError extends Error {
  override readonly name = 'CheckInputError';
}

export function parseCheckInput(raw: unknown): CheckInput {
  const r = z.safeParse(checkInputSchema, raw);
  if (!r.success) throw new CheckInputError(r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return r.data;
}

/** Groups that cannot run without a resolved node. */
const NODE_GROUPS: readonly CheckGroup[] = ['iam', 'network', 'eks'];

/** Whether the group has anything to check for the incident (its class needs it; a node if it needs one). */
export function groupApplies(group: CheckGroup, input: CheckInput): boolean {
  if (!input.class) return true;
  if (!CHECKS_FOR_CLASS[input.class].includes(group)) return false;
  return !NODE_GROUPS.includes(group) || input.node !== undefined;
}

/** The incident's image (`image`, else the incident entity) and, when it is an ECR image, its parts. */
export function inputImage(input: CheckInput): { image?: string; ecrImage?: EcrImage } {
  const image = input.image ?? input.entities?.image;
  return { image, ecrImage: image ? parseEcrImage(image) : undefined };
}

/** The resolved node, or CheckInputError for the groups that cannot run without one. */
export function requireNode(group: CheckGroup, input: CheckInput): NodeContext {
  if (!input.node) throw new CheckInputError(`the ${group} checks need a resolved node`);
  return input.node;
}

/** The resolved node, or a placeholder for the groups that also run without one. */
export function nodeOrUnknown(input: CheckInput): NodeContext {
  return input.node ?? { instanceId: 'unknown', securityGroupIds: [] };
}
