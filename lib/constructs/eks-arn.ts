import { ArnFormat, type Stack } from 'aws-cdk-lib';

/**
 * ARN of an EKS resource (`cluster`, `nodegroup`, `addon`, `access-entry`, `podidentityassociation`)
 * of this account, in `region` (default: the stack's Region).
 */
export function eksArn(stack: Stack, resource: string, resourceName: string, region?: string): string {
  return stack.formatArn({
    service: 'eks',
    resource,
    resourceName,
    region: region ?? stack.region,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}
