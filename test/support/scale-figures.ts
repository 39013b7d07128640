import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvedLength } from '../../lib/constructs/resolved-size.js';
import { DEPLOY_ENV, synthIn } from './synth.js';

/**
 * The configuration /work/shared/acceptance/deploy-limits deploys, at any size: every cluster with
 * a log group, remediation targets (a node role, an endpoint security group, a subnet), a node role
 * ARN, the Kubernetes API (the default) and the account's IAM-event forwarder.
 */
export function scaleConfig(clusters: number): unknown {
  return {
    clusters: Array.from({ length: clusters }, (_, i) => {
      const k = String(i).padStart(2, '0');
      return {
        name: `team-${k}-prod`,
        logGroups: [`/aws/containerinsights/team-${k}-prod/dataplane`],
        remediation: {
          roles: [`eks/team-${k}-node-role`],
          endpointSecurityGroups: [`sg-0${k}23456789abcdef`.slice(0, 20)],
          subnets: [`subnet-0${k}23456789abcdef`.slice(0, 24)],
        },
        nodeRoleArns: [`arn:aws:iam::111122223333:role/eks/team-${k}-node-role`],
      };
    }),
    notificationEmails: ['oncall@example.com'],
    forwardIamEvents: true,
  };
}

/** CloudFormation's and IAM's limits the figures are checked against (documented quotas). */
export const LIMITS = {
  /** Resources in one template (CloudFormation quota). */
  resources: 500,
  /** Template body from S3, bytes (CloudFormation quota; `cdk deploy` uploads it to S3). */
  templateBytes: 1_000_000,
  /** A role's inline policies together, characters without whitespace (IAM quota). */
  roleInlineChars: 10_240,
  /** One customer managed policy, characters without whitespace (IAM quota). */
  managedPolicyChars: 6_144,
  /** Managed policies attached to one role (IAM default quota, adjustable to 20). */
  managedPoliciesPerRole: 10,
  /** Lambda environment, keys and values (Lambda quota). */
  environmentBytes: 4_096,
} as const;

/** One template of the cloud assembly, measured. */
export interface TemplateFigures {
  readonly file: string;
  readonly resources: number;
  /** Bytes as the CDK writes it (indented), the size CloudFormation receives. */
  readonly bytes: number;
  readonly parameters: number;
  readonly outputs: number;
}

/** One role's policies, measured at their resolved length. */
export interface RoleFigures {
  readonly role: string;
  readonly inlineChars: number;
  readonly managedPolicies: number;
  readonly largestManagedChars: number;
  /** Inline and managed together: what the role's policies need in all. */
  readonly totalChars: number;
}

/** A synthesized deployment of `clusters` clusters, measured. */
export interface ScaleFigures {
  readonly clusters: number;
  readonly synthMs: number;
  readonly templates: readonly TemplateFigures[];
  readonly roles: readonly RoleFigures[];
  readonly largestEnvironmentBytes: number;
  readonly stateMachineChars: number;
}

interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

/** A policy document's length once CloudFormation resolves it (references at resolvedLength), no whitespace. */
export function policyChars(doc: unknown): number {
  const resolved = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(resolved);
    if (v === null || typeof v !== 'object') return v;
    const keys = Object.keys(v);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'))) return 'x'.repeat(resolvedLength(v));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolved(x)]));
  };
  return JSON.stringify(resolved(doc)).length;
}

/**
 * Synthesizes the app as `cdk deploy` does (CDK_DEFAULT_ACCOUNT/REGION, cdk-nag, bundling off) with
 * `clusters` clusters and measures every template. CDK's own refusal above 500 resources is lifted
 * (`@aws-cdk/core:stackResourceLimit` 0) so that sizes past the limit can be measured, not deployed.
 */
export function measureScale(clusters: number): ScaleFigures {
  const outdir = mkdtempSync(join(tmpdir(), 'pod-doctor-scale-'));
  try {
    const started = Date.now();
    synthIn(scaleConfig(clusters), DEPLOY_ENV, outdir, { '@aws-cdk/core:stackResourceLimit': 0 });
    const synthMs = Date.now() - started;
    const templates: TemplateFigures[] = [];
    const roles: RoleFigures[] = [];
    let largestEnvironmentBytes = 0;
    let stateMachineChars = 0;
    for (const file of readdirSync(outdir).filter((f) => f.endsWith('.template.json'))) {
      const text = readFileSync(join(outdir, file), 'utf8');
      const t = JSON.parse(text) as Record<string, Record<string, CfnResource> | undefined>;
      const resources = Object.entries(t.Resources ?? {});
      templates.push({
        file,
        resources: resources.length,
        bytes: Buffer.byteLength(text),
        parameters: Object.keys(t.Parameters ?? {}).length,
        outputs: Object.keys(t.Outputs ?? {}).length,
      });
      roles.push(...roleFigures(file, resources));
      for (const [, r] of resources) {
        if (r.Type === 'AWS::Lambda::Function') {
          const env =
            (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
          const bytes = Object.entries(env).reduce((n, [k, v]) => n + Buffer.byteLength(k) + resolvedLength(v), 0);
          largestEnvironmentBytes = Math.max(largestEnvironmentBytes, bytes);
        }
        if (r.Type === 'AWS::StepFunctions::StateMachine') {
          stateMachineChars = Math.max(stateMachineChars, resolvedLength(r.Properties?.DefinitionString));
        }
      }
    }
    return { clusters, synthMs, templates, roles, largestEnvironmentBytes, stateMachineChars };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Per role of one template: its inline policies' total, how many managed policies, the largest. */
function roleFigures(file: string, resources: readonly [string, CfnResource][]): RoleFigures[] {
  const byRole = new Map<string, { inlineChars: number; managed: number[] }>();
  const entry = (role: string) => {
    const e = byRole.get(role) ?? { inlineChars: 0, managed: [] };
    byRole.set(role, e);
    return e;
  };
  for (const [id, r] of resources) {
    const p = r.Properties ?? {};
    const attached = ((p.Roles as unknown[] | undefined) ?? []).map((x) => `${file}:${JSON.stringify(x)}`);
    if (r.Type === 'AWS::IAM::Role') {
      const inline = (p.Policies as { PolicyDocument: unknown }[] | undefined) ?? [];
      entry(`${file}:${JSON.stringify({ Ref: id })}`).inlineChars += inline.reduce(
        (n, x) => n + policyChars(x.PolicyDocument),
        0,
      );
    }
    if (r.Type === 'AWS::IAM::Policy')
      for (const role of attached) entry(role).inlineChars += policyChars(p.PolicyDocument);
    if (r.Type === 'AWS::IAM::ManagedPolicy')
      for (const role of attached) entry(role).managed.push(policyChars(p.PolicyDocument));
  }
  return [...byRole].map(([role, e]) => ({
    role,
    inlineChars: e.inlineChars,
    managedPolicies: e.managed.length,
    largestManagedChars: Math.max(0, ...e.managed),
    totalChars: e.inlineChars + e.managed.reduce((n, x) => n + x, 0),
  }));
}

/** Linear fit of a figure over the measured sizes: the cluster count at which it first exceeds `limit`. */
export function clustersAtLimit(points: readonly { clusters: number; value: number }[], limit: number): number {
  const first = points[0];
  const last = points[points.length - 1];
  const perCluster = (last.value - first.value) / (last.clusters - first.clusters);
  if (perCluster <= 0) return first.value > limit ? 0 : Number.POSITIVE_INFINITY;
  const base = first.value - perCluster * first.clusters;
  return Math.floor((limit - base) / perCluster) + 1;
}
