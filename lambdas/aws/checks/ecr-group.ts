import { finding, runCheck } from '../../core/contract/findings.js';
import { type GroupRunner, inputImage, nodeOrUnknown } from '../readers/account/check-input.js';
import { checkImageExists, checkRepositoryPolicy } from './ecr-checks.js';

/** Group "ecr": the repository policy lets the node role pull; the image (tag or digest) exists. */
export const runEcrGroup: GroupRunner<'ecr' | 'changes'> = async (input, clients, now) => {
  const { ecrImage } = inputImage(input);
  if (!ecrImage) {
    const why = input.image ? `${input.image} is not an ECR image` : 'no image in the incident';
    return [
      finding('ecr.repository-policy', 'pass', `${why}: no ECR repository policy involved`, {
        image: input.image ?? null,
      }),
      finding('ecr.image-exists', 'warn', `${why}: existence not checked against ECR`, { image: input.image ?? null }),
    ];
  }
  const ecr = clients.ecr(ecrImage.region);
  const node = nodeOrUnknown(input);
  return [
    ...(input.node
      ? await runCheck('ecr.repository-policy', () => checkRepositoryPolicy(ecr, node, ecrImage))
      : [
          finding(
            'ecr.repository-policy',
            'warn',
            'node unknown: the repository policy was not evaluated for its role',
            {
              repository: ecrImage.repositoryArn,
            },
          ),
        ]),
    ...(await runCheck('ecr.image-exists', () => checkImageExists(ecr, clients.changes, ecrImage, now))),
  ];
};
