import { Annotations, CfnRule, Fn, Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CONFIG_CONTEXT_KEY, ConfigError, type PodDoctorConfig } from './config.js';

/** The one region where IAM (a global service) delivers its CloudTrail events to EventBridge. */
export const IAM_EVENTS_REGION = 'us-east-1';

const WHY_ONE_REGION =
  'pod-doctor watches clusters in the region it is deployed to (log subscriptions must target a function in the same region; Run Command and the checks are regional): deploy one pod-doctor stack per region';

/**
 * `clusters[].region` may only name the stack's own region. Refused at synth when the stack's region
 * is known (`cdk deploy`, an explicit `env`); otherwise a template rule refuses the deployment with
 * the same message before CloudFormation creates anything.
 * @throws ConfigError naming the cluster entry
 */
export function requireClustersInStackRegion(scope: Construct, clusters: PodDoctorConfig['clusters']): void {
  const stack = Stack.of(scope);
  const named = clusters.map((c, i) => ({ ...c, i })).filter((c) => c.region !== undefined);
  if (named.length === 0) return;
  if (!Token.isUnresolved(stack.region)) {
    const wrong = named.filter((c) => c.region !== stack.region);
    if (wrong.length)
      throw new ConfigError(
        wrong.map(
          (c) =>
            `${CONFIG_CONTEXT_KEY}.clusters[${c.i}].region: "${c.region}" is not the stack's region "${stack.region}"; ${WHY_ONE_REGION}`,
        ),
      );
    return;
  }
  new CfnRule(scope, 'ClustersInStackRegion', {
    assertions: [...new Set(named.map((c) => c.region as string))].map((region) => ({
      assert: Fn.conditionEquals(stack.region, region),
      assertDescription: `${CONFIG_CONTEXT_KEY}.clusters[].region is "${region}" but this stack is deployed to another region; ${WHY_ONE_REGION}.`,
    })),
  });
}

/**
 * Outside us-east-1 the stack's IAM rules see nothing unless a forwarder brings the events over.
 * Says so plainly at synth (a warning) when nothing forwards them.
 */
export function warnIamEventsNotSeen(scope: Construct, forwarded: boolean): void {
  const region = Stack.of(scope).region;
  if (forwarded || region === IAM_EVENTS_REGION) return;
  const where = Token.isUnresolved(region) ? 'unless this stack is deployed to us-east-1' : `in ${region}`;
  Annotations.of(scope).addWarningV2(
    'pod-doctor:iam-events-not-seen',
    `IAM events (DetachRolePolicy, DeleteRolePolicy, PutRolePolicy ...) reach EventBridge in ${IAM_EVENTS_REGION} only: ${where} pod-doctor does not see node-role policy changes as they happen. Set ${CONFIG_CONTEXT_KEY}.forwardIamEvents to true (deploys a forwarding rule in ${IAM_EVENTS_REGION}; cdk deploy --all) or deploy in ${IAM_EVENTS_REGION}.`,
  );
}

const WHY_SECRET_HERE =
  'ECR reads a pull-through cache rule’s upstream credentials from a Secrets Manager secret in the registry’s own account and Region: create the ecr-pullthroughcache/ secret there';

/**
 * `clusters[].remediation.pullThroughCache.credentialArn` must be a secret of the stack's account
 * and Region (where the remedy creates the rule). Refused at synth when both are known; otherwise a
 * template rule refuses the deployment with the same message.
 * @throws ConfigError naming the cluster entry
 */
export function requirePullThroughSecretsHere(scope: Construct, clusters: PodDoctorConfig['clusters']): void {
  const stack = Stack.of(scope);
  const secrets = clusters
    .map((c, i) => ({ i, arn: c.remediation.pullThroughCache?.credentialArn }))
    .filter((s): s is { i: number; arn: string } => s.arn !== undefined)
    .map((s) => ({ ...s, region: s.arn.split(':')[3] ?? '', account: s.arn.split(':')[4] ?? '' }));
  if (secrets.length === 0) return;
  const key = (i: number) => `${CONFIG_CONTEXT_KEY}.clusters[${i}].remediation.pullThroughCache.credentialArn`;
  if (!Token.isUnresolved(stack.region) && !Token.isUnresolved(stack.account)) {
    const wrong = secrets.filter((s) => s.region !== stack.region || s.account !== stack.account);
    if (wrong.length)
      throw new ConfigError(
        wrong.map(
          (s) =>
            `${key(s.i)}: the secret is in ${s.account}/${s.region}, the stack in ${stack.account}/${stack.region}; ${WHY_SECRET_HERE}`,
        ),
      );
    return;
  }
  new CfnRule(scope, 'PullThroughSecretsHere', {
    assertions: secrets.flatMap((s) => [
      {
        assert: Fn.conditionEquals(stack.region, s.region),
        assertDescription: `${key(s.i)} is a secret in ${s.region} but this stack is deployed to another Region; ${WHY_SECRET_HERE}.`,
      },
      {
        assert: Fn.conditionEquals(stack.account, s.account),
        assertDescription: `${key(s.i)} is a secret of account ${s.account} but this stack is deployed to another account; ${WHY_SECRET_HERE}.`,
      },
    ]),
  });
}
