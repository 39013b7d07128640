import { loadConfig, NODE_REGION_CONFIG_FILE_OPTIONS, NODE_REGION_CONFIG_OPTIONS } from '@smithy/core/config';

/** No Region anywhere the AWS tools look; the message says where to put one. */
export class NoRegionError extends Error {
  override readonly name = 'NoRegionError';
  constructor(command: string) {
    super(
      `pod-doctor ${command}: no Region: pass --region, set AWS_REGION, or give the profile a region (aws configure set region eu-west-1${process.env.AWS_PROFILE ? ` --profile ${process.env.AWS_PROFILE}` : ''})`,
    );
  }
}

/**
 * The Region and profile as every AWS tool reads them, for the CLI's account commands: `--region`,
 * then AWS_REGION and AWS_DEFAULT_REGION (the AWS CLI's variable), then the SDK's own chain, the one
 * each client resolves at its first call: the region of the profile (`--profile`, else AWS_PROFILE,
 * else `default`) in ~/.aws/config or ~/.aws/credentials (AWS_CONFIG_FILE and
 * AWS_SHARED_CREDENTIALS_FILE move them), then the instance's Region from IMDS. `--profile` is set as
 * AWS_PROFILE so the credential chain of every client reads the same profile; the Region found is set
 * as AWS_REGION so every client, and the checks' own Region arguments, use the same one.
 */
export async function resolveAccountRegion(
  command: string,
  o: { readonly region?: string; readonly profile?: string },
): Promise<string> {
  if (o.profile) process.env.AWS_PROFILE = o.profile;
  const region =
    o.region ??
    process.env.AWS_REGION ??
    process.env.AWS_DEFAULT_REGION ??
    (await loadConfig(NODE_REGION_CONFIG_OPTIONS, NODE_REGION_CONFIG_FILE_OPTIONS)().catch(() => undefined));
  if (!region) throw new NoRegionError(command);
  process.env.AWS_REGION = region;
  return region;
}
