/** The access key that signed an EKS bearer token (`k8s-aws-v1.` + base64url of a presigned STS URL). */
export function accessKeyOfToken(authorization: string | undefined): string | undefined {
  const token = /^Bearer k8s-aws-v1\.(.+)$/.exec(authorization ?? '')?.[1];
  if (!token) return undefined;
  try {
    const url = new URL(Buffer.from(token, 'base64url').toString('utf8'));
    return url.searchParams.get('X-Amz-Credential')?.split('/')[0];
  } catch {
    return undefined;
  }
}
