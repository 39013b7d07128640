import {
  DescribeImagesCommand,
  DescribeRepositoriesCommand,
  type ECRClientResolvedConfig,
  type ServiceInputTypes as EcrInput,
  type ServiceOutputTypes as EcrOutput,
  GetRepositoryPolicyCommand,
  ImageNotFoundException,
  RepositoryNotFoundException,
  RepositoryPolicyNotFoundException,
} from '@aws-sdk/client-ecr';
import type { AwsStub } from 'aws-sdk-client-mock';
import { evaluate, namesPrincipal, type PolicyDocument } from '../lambdas/core/policy/iam-policy.js';
import type { AccountSnapshot } from './account-snapshot.js';
import type { Answer } from './mock-account-writes.js';
import { meta, serviceError } from './mock-sdk.js';

export type EcrStub = AwsStub<EcrInput, EcrOutput, ECRClientResolvedConfig>;

/**
 * The repository `name` of registry `registryId`. Another account's repository answers pod-doctor's
 * role only when its policy grants that role.
 */
export function repositoryFor(
  account: AccountSnapshot,
  action: string,
  name?: string,
  registryId: string = account.accountId,
) {
  const checkRole = `arn:aws:iam::${account.accountId}:role/PodDoctorCheck`;
  const x = Object.values(account.repositories).find(
    (r) => r.repository.repositoryName === name && (r.repository.registryId ?? account.accountId) === registryId,
  );
  if (registryId !== account.accountId) {
    const resource = `arn:aws:ecr:${account.region}:${registryId}:repository/${name}`;
    const granted =
      x?.policyText !== undefined &&
      evaluate(
        [{ name: 'repository-policy', document: JSON.parse(x.policyText) as PolicyDocument }],
        `ecr:${action}`,
        resource,
        (s) => namesPrincipal(s, checkRole),
      ).decision === 'allowed';
    // The message AWS returns (e.g. github.com/ministryofjustice/modernisation-platform/pull/4454).
    if (!granted)
      throw serviceError(
        'AccessDeniedException',
        `User: arn:aws:sts::${account.accountId}:assumed-role/PodDoctorCheck/pod-doctor is not authorized to perform: ecr:${action} on resource: ${resource} because no resource-based policy allows the ecr:${action} action`,
        400,
      );
  }
  if (!x) {
    throw new RepositoryNotFoundException({
      message: `The repository with name '${name}' does not exist in the registry with id '${registryId}'`,
      $metadata: meta(400),
    });
  }
  return x;
}

/** ECR reads of the recorded account: repository policies, images, repositories. */
export function mockEcrReads(r: EcrStub, account: AccountSnapshot, on: Answer): void {
  r.on(GetRepositoryPolicyCommand).callsFake(
    on('GetRepositoryPolicyCommand', (input: { repositoryName?: string; registryId?: string }) => {
      const x = repositoryFor(account, 'GetRepositoryPolicy', input.repositoryName, input.registryId);
      if (!x.policyText) {
        throw new RepositoryPolicyNotFoundException({
          message: `Repository policy does not exist for the repository with name '${input.repositoryName}' in the registry with id '${input.registryId}'`,
          $metadata: meta(400),
        });
      }
      return { registryId: input.registryId, repositoryName: input.repositoryName, policyText: x.policyText };
    }),
  );
  r.on(DescribeImagesCommand).callsFake(
    on(
      'DescribeImagesCommand',
      (input: {
        repositoryName?: string;
        registryId?: string;
        imageIds?: { imageTag?: string; imageDigest?: string }[];
      }) => {
        const x = repositoryFor(account, 'DescribeImages', input.repositoryName, input.registryId);
        if (!input.imageIds) return { imageDetails: x.images };
        const found = x.images.filter((img) =>
          input.imageIds?.some(
            (id) =>
              (id.imageTag && img.imageTags?.includes(id.imageTag)) ||
              (id.imageDigest && img.imageDigest === id.imageDigest),
          ),
        );
        if (!found.length) {
          const id = input.imageIds[0];
          throw new ImageNotFoundException({
            message: `The image with imageId {imageDigest:'${id.imageDigest ?? 'null'}', imageTag:'${id.imageTag ?? 'null'}'} does not exist within the repository with name '${input.repositoryName}' in the registry with id '${account.accountId}'`,
            $metadata: meta(400),
          });
        }
        return { imageDetails: found };
      },
    ),
  );
  r.on(DescribeRepositoriesCommand).callsFake(
    on('DescribeRepositoriesCommand', (input: { registryId?: string }) => {
      const registryId = input.registryId ?? account.accountId;
      if (registryId !== account.accountId) repositoryFor(account, 'DescribeRepositories', '*', registryId);
      return {
        repositories: Object.values(account.repositories)
          .map((x) => x.repository)
          .filter((r) => (r.registryId ?? account.accountId) === registryId),
      };
    }),
  );
}
