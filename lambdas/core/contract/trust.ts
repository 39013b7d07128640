/**
 * Which sandbox (pause) images pod-doctor will restore on a node. The image always comes from the
 * node's own configuration (containerd `sandbox_image` / kubelet `--pod-infra-container-image`, as
 * the probe reads them), never from log text, and must be one of these repositories.
 */

/**
 * The account of the Amazon EKS image registry in each Region; every Region not listed uses
 * 602401143452. Sources: https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html and
 * the same table for the China Regions, https://docs.amazonaws.cn/en_us/eks/latest/userguide/add-ons-images.html
 * (also encoded by the EKS AMI: awslabs/amazon-eks-ami get-ecr-uri). A Region whose account is not
 * here and is not 602401143452 is simply not trusted until the user configures its repository.
 */
export const EKS_REGISTRY_ACCOUNTS: Readonly<Record<string, string>> = {
  'af-south-1': '877085696533',
  'ap-east-1': '800184023465',
  'ap-east-2': '533267051163',
  'ap-south-2': '900889452093',
  'ap-southeast-3': '296578399912',
  'ap-southeast-4': '491585149902',
  'ap-southeast-5': '151610086707',
  'ap-southeast-6': '333609536671',
  'ap-southeast-7': '121268973566',
  'cn-north-1': '918309763551',
  'cn-northwest-1': '961992271922',
  'eu-central-2': '900612956339',
  'eu-south-1': '590381155156',
  'eu-south-2': '455263428931',
  'il-central-1': '066635153087',
  'me-central-1': '759879836304',
  'me-south-1': '558608220178',
  'us-gov-east-1': '151742754352',
  'us-gov-west-1': '013241004608',
};
export const DEFAULT_EKS_REGISTRY_ACCOUNT = '602401143452';

/** The image AL2023 bakes into /etc/eks/pause.tar. */
export const LOCAL_PAUSE_REPOSITORY = 'localhost/kubernetes/pause';

const EKS_PAUSE =
  /^(\d{12})\.dkr\.ecr(?:-fips)?\.((?:[a-z]{2}(?:-gov)?-[a-z]+-\d))\.amazonaws\.com(\.cn)?\/eks\/pause$/;
/** Same shape as IMAGE_PATTERN in ssm/documents.ts (what the repair document admits). */
const REFERENCE =
  /^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)+(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;
const MAX_REFERENCE = 255;

/** The repository part of a reference: no tag, no digest. */
export function repositoryOf(image: string): string {
  const noDigest = image.split('@')[0];
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/** containerd reads a reference without tag or digest as :latest. */
export function normalizeImage(image: string): string {
  const last = image.slice(image.lastIndexOf('/') + 1);
  return last.includes(':') || last.includes('@') ? image : `${image}:latest`;
}

/** The EKS pause repository of a Region (`<account>.dkr.ecr.<region>.<domain>/eks/pause`). */
export function eksPauseRepository(region: string): string {
  const account = EKS_REGISTRY_ACCOUNTS[region] ?? DEFAULT_EKS_REGISTRY_ACCOUNT;
  const domain = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `${account}.dkr.ecr.${region}.${domain}/eks/pause`;
}

/** Why an image is not a trusted pause image, or undefined when it is. */
export function untrustedPauseImage(image: string, configured: readonly string[] = []): string | undefined {
  if (image.length > MAX_REFERENCE || !REFERENCE.test(image)) return 'not a well-formed image reference';
  const repo = repositoryOf(image);
  if (repo === LOCAL_PAUSE_REPOSITORY) return undefined;
  if (configured.map(repositoryOf).includes(repo)) return undefined;
  const m = EKS_PAUSE.exec(repo);
  if (m) {
    const [, account, region, cn] = m;
    const expected = EKS_REGISTRY_ACCOUNTS[region] ?? DEFAULT_EKS_REGISTRY_ACCOUNT;
    if (account === expected && Boolean(cn) === region.startsWith('cn-')) return undefined;
    return `account ${account} is not the Amazon EKS registry of ${region} (${expected})`;
  }
  return `${repo} is neither an Amazon EKS pause repository, ${LOCAL_PAUSE_REPOSITORY}, nor a configured trusted sandbox image`;
}

export function isTrustedPauseImage(image: string, configured: readonly string[] = []): boolean {
  return untrustedPauseImage(image, configured) === undefined;
}

/**
 * The sandbox image repositories a node of a cluster in `region` may be configured with and pod-doctor trusts: the
 * Region's EKS pause repository (AL2 and custom AMIs), AL2023's `localhost/kubernetes/pause`, and the configured
 * ones. What the pod-facts refinement (pod-facts.ts) takes for "the node's sandbox image".
 */
export function sandboxRepositories(region: string, configured: readonly string[] = []): string[] {
  return [eksPauseRepository(region), LOCAL_PAUSE_REPOSITORY, ...configured.map(repositoryOf)];
}

/**
 * A sandbox-image failure counts only for a trusted pause image: one whose image is not a trusted
 * pause reference is a workload image named like one (`x.io/eks/pause:1`) or tenant text quoting one,
 * so it is read as a failed pull of a workload image.
 */
export function trustedSandboxClass<C extends string>(
  cls: C,
  cause: string,
  image: string | undefined,
  configured: readonly string[] = [],
): { class: C | 'image-pull-failed'; cause: string } {
  if (cls !== 'sandbox-image' || !image) return { class: cls, cause };
  const why = untrustedPauseImage(image, configured);
  if (!why) return { class: cls, cause };
  return {
    class: 'image-pull-failed',
    cause: `an image named like a pause image failed, but it is not a trusted sandbox image (${why}): treated as a workload image`,
  };
}
