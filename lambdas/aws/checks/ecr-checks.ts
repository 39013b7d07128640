import {
  DescribeImagesCommand,
  type ECRClient,
  GetRepositoryPolicyCommand,
  ImageNotFoundException,
  paginateDescribeImages,
  paginateDescribeRepositories,
  RepositoryNotFoundException,
  RepositoryPolicyNotFoundException,
} from '@aws-sdk/client-ecr';
import type { ChangeReader } from '../../core/cloudtrail/change-records.js';
import { type Finding, finding } from '../../core/contract/findings.js';
import { closest, type EcrImage } from '../../core/contract/images.js';
import { ECR_PULL_ACTIONS, evaluate, namesPrincipal, type PolicyDocument } from '../../core/policy/iam-policy.js';
import type { NodeContext } from '../readers/account/node-context.js';

function accountOf(roleArn: string | undefined): string | undefined {
  return roleArn ? /^arn:aws[\w-]*:iam::(\d{12}):/.exec(roleArn)?.[1] : undefined;
}

/** The read actions pod-doctor's checks call on a repository (what another account's policy must grant). */
export const CHECK_READ_ACTIONS = ['ecr:DescribeImages', 'ecr:GetRepositoryPolicy'] as const;

/**
 * A denial of pod-doctor's own role by another account's repository, read from the AccessDenied message
 * ("User: arn:aws:sts::A:assumed-role/R/s is not authorized to perform: ecr:X on resource: arn … because
 * no resource-based policy allows the ecr:X action"). Undefined for any other error.
 */
export function crossAccountDenial(
  e: unknown,
  image: EcrImage,
): { callerRoleArn: string; callerAccount: string; action: string } | undefined {
  const err = e as { name?: string; message?: string };
  if (err?.name !== 'AccessDeniedException') return undefined;
  const m =
    /User: arn:(aws[\w-]*):sts::(\d{12}):assumed-role\/([\w+=,.@-]+)\/\S+ is not authorized to perform: (ecr:\w+)/.exec(
      err.message ?? '',
    );
  if (!m || m[2] === image.registryId) return undefined;
  return { callerRoleArn: `arn:${m[1]}:iam::${m[2]}:role/${m[3]}`, callerAccount: m[2], action: m[4] };
}

/** The finding for a repository in another account that does not let pod-doctor read it: not an error of pod-doctor. */
export function notGrantedFinding(
  id: string,
  image: EcrImage,
  denial: NonNullable<ReturnType<typeof crossAccountDenial>>,
): Finding {
  const statement = {
    Sid: 'PodDoctorChecks',
    Effect: 'Allow',
    Principal: { AWS: denial.callerRoleArn },
    Action: [...CHECK_READ_ACTIONS],
  };
  return finding(
    id,
    'warn',
    `not evaluated: repository ${image.repository} in account ${image.registryId} does not grant pod-doctor's role (${denial.callerRoleArn}) ${denial.action}`,
    {
      kind: 'cross-account-not-granted',
      repository: image.repositoryArn,
      repositoryAccount: image.registryId,
      podDoctorRole: denial.callerRoleArn,
      deniedAction: denial.action,
      statement,
    },
    `to let pod-doctor check it, add this statement to the repository policy of ${image.repository} in account ${image.registryId}: ${JSON.stringify(statement)}`,
  );
}

/** ecr.repository-policy: the repository policy does not deny the node role; cross-account pulls are granted. */
export async function checkRepositoryPolicy(ecr: ECRClient, node: NodeContext, image: EcrImage): Promise<Finding> {
  const id = 'ecr.repository-policy';
  const crossAccount = accountOf(node.roleArn) !== image.registryId;
  let doc: PolicyDocument | undefined;
  try {
    const r = await ecr.send(
      new GetRepositoryPolicyCommand({ registryId: image.registryId, repositoryName: image.repository }),
    );
    doc = r.policyText ? (JSON.parse(r.policyText) as PolicyDocument) : undefined;
  } catch (e) {
    if (e instanceof RepositoryNotFoundException) {
      return finding(
        id,
        'warn',
        `repository ${image.repository} does not exist in ${image.registryId}: no policy to evaluate (see ecr.image-exists)`,
        { repository: image.repositoryArn },
      );
    }
    const denial = crossAccountDenial(e, image);
    if (denial) return notGrantedFinding(id, image, denial);
    if (!(e instanceof RepositoryPolicyNotFoundException)) throw e;
  }
  const evidence: Record<string, unknown> = {
    repository: image.repositoryArn,
    nodeRole: node.roleArn,
    crossAccount,
    hasPolicy: doc !== undefined,
  };
  if (!doc) {
    return crossAccount
      ? finding(
          id,
          'fail',
          `${image.repository} in account ${image.registryId} has no repository policy, so role ${node.roleName} of another account cannot pull`,
          evidence,
          `add a repository policy allowing ${ECR_PULL_ACTIONS.join(', ')} to ${node.roleArn}`,
        )
      : finding(
          id,
          'pass',
          `${image.repository} has no repository policy; same-account pulls follow the node role`,
          evidence,
        );
  }
  const roleArn = node.roleArn ?? '';
  const decisions = ECR_PULL_ACTIONS.map((a) =>
    evaluate([{ name: 'repository-policy', document: doc }], a, image.repositoryArn, (s) => namesPrincipal(s, roleArn)),
  );
  evidence.decisions = Object.fromEntries(decisions.map((d) => [d.action, d.decision]));
  const denied = decisions.filter((d) => d.decision === 'denied' || d.decision === 'conditionally-denied');
  if (denied.length) {
    return finding(
      id,
      'fail',
      `repository policy of ${image.repository} denies ${node.roleName} ${denied.map((d) => d.action).join(', ')}`,
      evidence,
      `remove or narrow the Deny statements ${denied.flatMap((d) => d.by).join(', ')}`,
    );
  }
  if (crossAccount && decisions.some((d) => d.decision === 'implicitly-denied')) {
    return finding(
      id,
      'fail',
      `repository policy of ${image.repository} (account ${image.registryId}) does not grant ${node.roleName} of account ${accountOf(node.roleArn)}`,
      evidence,
      `allow ${ECR_PULL_ACTIONS.join(', ')} for principal ${node.roleArn} (or its account) in the repository policy`,
    );
  }
  return finding(id, 'pass', `repository policy of ${image.repository} lets ${node.roleName} pull`, evidence);
}

/** ecr.image-exists: the repository and tag/digest exist; closest tags and recent deletions when not. */
export async function checkImageExists(
  ecr: ECRClient,
  changes: ChangeReader,
  image: EcrImage,
  now: Date,
  lookbackHours = 72,
): Promise<Finding> {
  const id = 'ecr.image-exists';
  const ref = image.digest ? `@${image.digest}` : `:${image.tag}`;
  try {
    await ecr.send(
      new DescribeImagesCommand({
        registryId: image.registryId,
        repositoryName: image.repository,
        imageIds: [image.digest ? { imageDigest: image.digest } : { imageTag: image.tag }],
      }),
    );
    return finding(id, 'pass', `${image.repository}${ref} exists`, { repository: image.repositoryArn });
  } catch (e) {
    const denial = crossAccountDenial(e, image);
    if (denial) return notGrantedFinding(id, image, denial);
    if (e instanceof RepositoryNotFoundException) {
      const names = await repositoryNames(ecr, image);
      const near = closest(image.repository, names);
      return finding(
        id,
        'fail',
        `repository ${image.repository} does not exist in ${image.registryId}/${image.region}`,
        { repository: image.repositoryArn, closestRepositories: near },
        near.length
          ? `did you mean ${near[0]}? fix the image name in the pod spec`
          : 'fix the image name in the pod spec',
      );
    }
    if (!(e instanceof ImageNotFoundException)) throw e;
  }
  const tags: string[] = [];
  for await (const page of paginateDescribeImages(
    { client: ecr },
    { registryId: image.registryId, repositoryName: image.repository },
  )) {
    for (const d of page.imageDetails ?? []) tags.push(...(d.imageTags ?? []));
  }
  const near = image.tag ? closest(image.tag, tags) : [];
  const deletions = await recentDeletions(changes, image, now, lookbackHours);
  return finding(
    id,
    'fail',
    `${image.repository}${ref} not found${near.length ? `; closest tags: ${near.join(', ')}` : ''}${deletions.length ? `; deleted recently by ${deletions[0].by}` : ''}`,
    { repository: image.repositoryArn, closestTags: near, recentDeletions: deletions, tagsInRepository: tags.length },
    deletions.length
      ? deletions[0].event === 'PolicyExecutionEvent'
        ? "the repository's lifecycle policy expired the image: push it again and exclude the tags pods use from the lifecycle rule"
        : 'the image was deleted (BatchDeleteImage): push it again or pin a tag that is kept'
      : near.length
        ? `use an existing tag, e.g. ${image.repository}:${near[0]}`
        : 'push the image or fix the reference',
  );
}

/** Deletions and lifecycle expiries of the image's repository, from the change index (newest first). */
async function recentDeletions(changes: ChangeReader, image: EcrImage, now: Date, lookbackHours: number) {
  const since = new Date(now.getTime() - lookbackHours * 3_600_000);
  const wanted = [image.tag, image.digest].filter((x): x is string => Boolean(x));
  return (await changes.recent(image.repository, since, 20))
    .filter(
      (c) =>
        (c.eventName === 'BatchDeleteImage' || c.eventName === 'PolicyExecutionEvent') &&
        (!c.images?.length || c.images.some((i) => wanted.includes(i))),
    )
    .map((c) => ({ at: new Date(c.at).toISOString(), by: c.actor, event: c.eventName, eventId: c.eventId }));
}

/** Repository names of the image's registry; none when that registry (another account) does not let us list it. */
async function repositoryNames(ecr: ECRClient, image: EcrImage): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const page of paginateDescribeRepositories({ client: ecr }, { registryId: image.registryId })) {
      names.push(...(page.repositories ?? []).map((r) => r.repositoryName ?? '').filter(Boolean));
    }
  } catch (e) {
    // DescribeRepositories of a whole registry cannot be granted across accounts: no suggestions then.
    if (!crossAccountDenial(e, image)) throw e;
  }
  return names;
}
