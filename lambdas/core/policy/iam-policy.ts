import { partitionOfArn } from '../contract/partition.js';
/**
 * Just enough IAM policy evaluation to answer "can this principal pull from ECR / manage ENIs":
 * Action/NotAction, Resource/NotResource with wildcards, explicit Deny wins, and conditions reported
 * (a conditional Allow may not apply; a conditional Deny may). Not a full IAM simulator: permission
 * boundaries, SCPs and session policies are out of scope and said so in the evidence.
 */

export interface PolicyStatement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | readonly string[];
  readonly NotAction?: string | readonly string[];
  readonly Resource?: string | readonly string[];
  readonly NotResource?: string | readonly string[];
  readonly Principal?: unknown;
  readonly NotPrincipal?: unknown;
  readonly Condition?: Record<string, unknown>;
}

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: PolicyStatement | readonly PolicyStatement[];
}

/** A policy with where it came from (for evidence). */
export interface NamedPolicy {
  readonly name: string;
  readonly document: PolicyDocument;
}

export type Decision = 'allowed' | 'conditionally-allowed' | 'denied' | 'conditionally-denied' | 'implicitly-denied';

export interface ActionDecision {
  readonly action: string;
  readonly resource: string;
  readonly decision: Decision;
  /** "policy/Sid" of the statements that decided. */
  readonly by: readonly string[];
}

const list = (v: string | readonly string[] | undefined): readonly string[] =>
  v === undefined ? [] : typeof v === 'string' ? [v] : v;

/** IAM wildcard match: `*` any run, `?` one character; actions case-insensitive. */
export function wildcardMatch(pattern: string, value: string, caseInsensitive = false): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    caseInsensitive ? 'i' : '',
  );
  return re.test(value);
}

function matchesAction(s: PolicyStatement, action: string): boolean {
  if (s.Action !== undefined) return list(s.Action).some((a) => wildcardMatch(a, action, true));
  if (s.NotAction !== undefined) return !list(s.NotAction).some((a) => wildcardMatch(a, action, true));
  return false;
}

function matchesResource(s: PolicyStatement, resource: string): boolean {
  if (s.Resource !== undefined) return list(s.Resource).some((r) => wildcardMatch(r, resource));
  if (s.NotResource !== undefined) return !list(s.NotResource).some((r) => wildcardMatch(r, resource));
  // Resource policies may omit Resource (ECR repository policies do): the statement is about this resource.
  return true;
}

export function statements(doc: PolicyDocument): readonly PolicyStatement[] {
  return Array.isArray(doc.Statement)
    ? (doc.Statement as readonly PolicyStatement[])
    : [doc.Statement as PolicyStatement];
}

/** Decides one action on one resource over a set of identity (or resource) policies. */
export function evaluate(
  policies: readonly NamedPolicy[],
  action: string,
  resource: string,
  principalMatches: (s: PolicyStatement) => boolean = () => true,
): ActionDecision {
  const allow: string[] = [];
  const conditionalAllow: string[] = [];
  const deny: string[] = [];
  const conditionalDeny: string[] = [];
  for (const p of policies) {
    for (const [i, s] of statements(p.document).entries()) {
      if (!matchesAction(s, action) || !matchesResource(s, resource) || !principalMatches(s)) continue;
      const who = `${p.name}/${s.Sid ?? `#${i}`}`;
      const conditional = s.Condition !== undefined && Object.keys(s.Condition).length > 0;
      if (s.Effect === 'Deny') (conditional ? conditionalDeny : deny).push(who);
      else (conditional ? conditionalAllow : allow).push(who);
    }
  }
  if (deny.length) return { action, resource, decision: 'denied', by: deny };
  if (allow.length && conditionalDeny.length)
    return { action, resource, decision: 'conditionally-denied', by: conditionalDeny };
  if (allow.length) return { action, resource, decision: 'allowed', by: allow };
  if (conditionalAllow.length) return { action, resource, decision: 'conditionally-allowed', by: conditionalAllow };
  return { action, resource, decision: 'implicitly-denied', by: [] };
}

/** The actions a node needs to pull one image from ECR. */
export const ECR_PULL_ACTIONS = [
  'ecr:BatchGetImage',
  'ecr:GetDownloadUrlForLayer',
  'ecr:BatchCheckLayerAvailability',
] as const;

/** The ENI / IP actions of AmazonEKS_CNI_Policy the VPC CNI cannot work without. */
export const CNI_ACTIONS = [
  'ec2:AssignPrivateIpAddresses',
  'ec2:AttachNetworkInterface',
  'ec2:CreateNetworkInterface',
  'ec2:DeleteNetworkInterface',
  'ec2:DescribeInstances',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DetachNetworkInterface',
  'ec2:ModifyNetworkInterfaceAttribute',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/**
 * Does a resource-policy statement name this principal? Handles "*", {"AWS": arn | account | root}
 * and the role's account root. NotPrincipal is treated as not naming it (conservative for Allow).
 */
export function namesPrincipal(s: PolicyStatement, roleArn: string): boolean {
  const p = s.Principal as string | { AWS?: string | string[] } | undefined;
  if (p === undefined) return false;
  if (p === '*') return true;
  const aws = typeof p === 'object' ? list(p.AWS as string | string[] | undefined) : [];
  const account = /^arn:aws[\w-]*:(?:iam|sts)::(\d{12}):/.exec(roleArn)?.[1];
  return aws.some(
    (a) =>
      a === '*' ||
      a === roleArn ||
      a === account ||
      a === `arn:${partitionOfArn(roleArn)}:iam::${account}:root` ||
      wildcardMatch(a, roleArn),
  );
}
