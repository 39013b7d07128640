import {
  CreatePullThroughCacheRuleCommand,
  DeletePullThroughCacheRuleCommand,
  DescribePullThroughCacheRulesCommand,
  type ECRClientResolvedConfig,
  type ServiceInputTypes as EcrInput,
  type ServiceOutputTypes as EcrOutput,
  PullThroughCacheRuleAlreadyExistsException,
  PullThroughCacheRuleNotFoundException,
  SecretNotFoundException,
  ValidatePullThroughCacheRuleCommand,
} from '@aws-sdk/client-ecr';
import type { AwsStub } from 'aws-sdk-client-mock';
import type { AccountSnapshot } from './account-snapshot.js';
import type { Answer } from './mock-account-writes.js';

/**
 * ECR pull-through cache rules of the recorded account, with ECR's validation: a prefix of 2–30
 * characters matching the API pattern, a credential ARN naming an existing `ecr-pullthroughcache/`
 * secret of the same account and Region (SecretNotFoundException otherwise), one rule per prefix.
 * ValidatePullThroughCacheRule answers from the secret's recorded state (do its credentials log in
 * to the upstream). Source: the CreatePullThroughCacheRule and ValidatePullThroughCacheRule API
 * references (https://docs.aws.amazon.com/AmazonECR/latest/APIReference/).
 */
const PREFIX = /^(?:[a-z0-9]+(?:[._-][a-z0-9]+)*\/)*[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const SECRET = /^arn:aws:secretsmanager:[a-zA-Z0-9-:]+:secret:ecr-pullthroughcache\/[a-zA-Z0-9/_+=.@-]+$/;

const meta = { httpStatusCode: 400, requestId: '7d3c2b1a-0e9f-4a8b-9c7d-6e5f4a3b2c1d', attempts: 1 };

function invalid(message: string): Error {
  return Object.assign(new Error(message), { name: 'InvalidParameterException', $fault: 'client', $metadata: meta });
}

/** What CreatePullThroughCacheRule refuses: a bad prefix or secret ARN, a missing secret, a prefix in use. */
function refuseCreate(account: AccountSnapshot, prefix: string, credentialArn?: string): void {
  if (prefix.length < 2 || prefix.length > 30 || !PREFIX.test(prefix))
    throw invalid(`Invalid parameter at 'ecrRepositoryPrefix' failed to satisfy constraint`);
  if (credentialArn !== undefined && !SECRET.test(credentialArn))
    throw invalid(`Invalid parameter at 'credentialArn' failed to satisfy constraint`);
  if (credentialArn !== undefined && !account.secrets?.[credentialArn])
    throw new SecretNotFoundException({
      message: `The secret with ARN '${credentialArn}' was not found`,
      $metadata: meta,
    });
  if ((account.pullThroughCacheRules ?? []).some((r) => r.ecrRepositoryPrefix === prefix))
    throw new PullThroughCacheRuleAlreadyExistsException({
      message: `A pull through cache rule with prefix '${prefix}' already exists`,
      $metadata: meta,
    });
}

export function mockCacheRules(
  account: AccountSnapshot,
  ecr: AwsStub<EcrInput, EcrOutput, ECRClientResolvedConfig>,
  on: Answer,
): void {
  const rules = () => {
    account.pullThroughCacheRules ??= [];
    return account.pullThroughCacheRules;
  };
  const find = (prefix?: string) => {
    const rule = rules().find((r) => r.ecrRepositoryPrefix === prefix);
    if (!rule)
      throw new PullThroughCacheRuleNotFoundException({
        message: `The pull through cache rule with prefix '${prefix}' does not exist in the registry with id '${account.accountId}'`,
        $metadata: meta,
      });
    return rule;
  };
  ecr.on(DescribePullThroughCacheRulesCommand).callsFake(
    on('DescribePullThroughCacheRulesCommand', (i: { ecrRepositoryPrefixes?: string[] }) => ({
      pullThroughCacheRules: rules()
        .filter((r) => !i.ecrRepositoryPrefixes || i.ecrRepositoryPrefixes.includes(r.ecrRepositoryPrefix))
        .map((r) => ({ ...r, registryId: account.accountId })),
    })),
  );
  ecr.on(CreatePullThroughCacheRuleCommand).callsFake(
    on(
      'CreatePullThroughCacheRuleCommand',
      (i: { ecrRepositoryPrefix?: string; upstreamRegistryUrl?: string; credentialArn?: string }) => {
        const prefix = i.ecrRepositoryPrefix ?? '';
        refuseCreate(account, prefix, i.credentialArn);
        const rule = {
          ecrRepositoryPrefix: prefix,
          upstreamRegistryUrl: i.upstreamRegistryUrl ?? '',
          ...(i.credentialArn ? { credentialArn: i.credentialArn } : {}),
          createdAt: new Date('2026-11-29T10:06:00Z'),
        };
        rules().push(rule);
        return { ...rule, registryId: account.accountId };
      },
    ),
  );
  ecr.on(DeletePullThroughCacheRuleCommand).callsFake(
    on('DeletePullThroughCacheRuleCommand', (i: { ecrRepositoryPrefix?: string }) => {
      const rule = find(i.ecrRepositoryPrefix);
      account.pullThroughCacheRules = rules().filter((r) => r !== rule);
      return { ...rule, registryId: account.accountId };
    }),
  );
  ecr.on(ValidatePullThroughCacheRuleCommand).callsFake(
    on('ValidatePullThroughCacheRuleCommand', (i: { ecrRepositoryPrefix?: string }) => {
      const rule = find(i.ecrRepositoryPrefix);
      const secret = rule.credentialArn ? account.secrets?.[rule.credentialArn] : undefined;
      const isValid = secret?.loginValid ?? false;
      return {
        ...rule,
        registryId: account.accountId,
        isValid,
        ...(isValid
          ? {}
          : { failure: secret ? 'Unable to log in to the upstream registry with the credentials' : 'no credentials' }),
      };
    }),
  );
}
