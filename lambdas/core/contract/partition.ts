/** The AWS partition a region belongs to: `aws-cn` (China), `aws-us-gov` (GovCloud), else `aws`. */
export function partitionOf(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/** The partition of an ARN (its second field), e.g. `aws-cn` for `arn:aws-cn:iam::…`. */
export function partitionOfArn(arn: string): string {
  return /^arn:(aws[\w-]*):/.exec(arn)?.[1] ?? 'aws';
}
