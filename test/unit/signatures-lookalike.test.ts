import { describe, expect, it } from 'vitest';
import { classify, classifyMessage } from '../../lambdas/core/detect/classifier.js';

/**
 * Healthy look-alikes read by cause (test/fixtures/field/lookalike.jsonl): refusals and errors of other
 * programs that share words with pod-start failures, next to the failures they must not hide.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe('a node launcher refused by EC2 is no VPC CNI permission', () => {
  it("reads Karpenter's own RunInstances/CreateFleet denials as no failure of a pod start", () => {
    for (const line of [
      'launching nodeclaim, creating instance, with fleet error(s), UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::123456789:assumed-role/karpenter/1 is not authorized to perform: ec2:RunInstances on resource: arn:aws:ec2:us-east-2:123456789:instance/*',
      'unauthorized to call ec2:CreateFleet: api error UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: abc',
      'Could not launch node, launching instances, creating fleet UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message',
    ])
      expect(classOf(line), line).toBe('unknown');
  });

  it("keeps the VPC CNI's own ENI/IP calls refused as cni-permissions", () => {
    for (const line of [
      'Failed to call ec2:DescribeNetworkInterfaces for [eni-0b70601dc9]: UnauthorizedOperation: You are not authorized to perform this operation.',
      'Failed to allocate a private IP addresses on ENI eni-0a1b2c: UnauthorizedOperation: You are not authorized to perform: ec2:AssignPrivateIpAddresses',
      'ipamd: failed to call ec2:CreateNetworkInterface: You are not authorized to perform this operation. Encoded authorization failure message: xyz',
    ])
      expect(classOf(line), line).toBe('cni-permissions');
  });

  it("keeps a launcher's subnet without free addresses as IP exhaustion", () => {
    expect(
      classOf(
        'launching machine, creating cloud provider instance, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet',
      ),
    ).toBe('ip-exhaustion');
  });
});

describe('a refusal that is no image pull is no registry-auth', () => {
  it("reads Argo CD's repo server refused by a Git or Helm source as unknown", () => {
    for (const line of [
      'time="2019-08-14T17:39:51Z" level=error msg="finished unary call with code Unknown" error="authentication required" grpc.code=Unknown grpc.method=GenerateManifest grpc.service=repository.RepoServerService system=grpc',
      'Unable to create application: application spec for app is invalid: InvalidSpecError: Unable to generate manifests in Code: rpc error: code = Unknown desc = NOAUTH Authentication required.',
    ])
      expect(classify(line).class, line).toBe('unknown');
  });

  it('reads ECR API calls no pull makes (listing, describing, pushing) as unknown', () => {
    for (const line of [
      'An error occurred (AccessDeniedException) when calling the ListImages operation: User: arn:aws:sts::1:assumed-role/r/s is not authorized to perform: ecr:ListImages on resource: arn:aws:ecr:eu-west-2:1:repository/app',
      'ERROR: An error occurred (AccessDeniedException) when calling the DescribeRepositories operation: User: arn:aws:iam::1:user/u is not authorized to perform: ecr:DescribeRepositories on resource: *',
      'denied: User: arn:aws:iam::1:user/ci is not authorized to perform: ecr:InitiateLayerUpload on resource: arn:aws:ecr:us-east-1:1:repository/app',
    ])
      expect(classOf(line), line).toBe('unknown');
  });

  it("keeps the pull path's refusals as registry-auth", () => {
    for (const line of [
      'Failed to pull image "1.dkr.ecr.us-east-1.amazonaws.com/app:1": rpc error: code = Unknown desc = failed to pull and unpack image: failed to resolve reference: pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
      'An error occurred (AccessDeniedException) when calling the GetAuthorizationToken operation: User: <user-arn> is not authorized to perform: ecr:GetAuthorizationToken on resource: *',
      'CannotPullECRContainerError: AccessDeniedException: User: arn:aws:sts::1:assumed-role/exec is not authorized to perform: ecr:BatchGetImage on resource: arn:aws:ecr:us-east-1:1:repository/app',
      'chart pull error: failed to download chart for remote reference: pulling from host 1.dkr.ecr.us-west-2.amazonaws.com failed with status code [manifests 1.1.5]: 401 Unauthorized',
    ])
      expect(classOf(line), line).toBe('registry-auth');
  });
});

describe('a logfmt line whose error value lost the backslashes of its inner quotes', () => {
  it('reads the cause after the cut, and keeps a pull without a cause as image-pull-failed', () => {
    // bottlerocket-os/bottlerocket#479 (host-ctr) pasted where Markdown dropped the backslashes.
    const cut =
      'time="2019-10-29T15:33:25-07:00" level=warning msg="Failed to pull image. Waiting 4.273s before retrying..." error="failed to resolve reference "328549459982.dkr.ecrus-west-2.amazonaws.com/thar-admin:0.2": failed to do request: Head "https://328549459982.dkr.ecrus-west-2.amazonaws.com/v2/thar-admin/manifests/0.2": dial tcp: lookup 328549459982.dkr.ecrus-west-2.amazonaws.com on 127.0.1.1:53: no such host"';
    expect(classify(cut).format).toBe('containerd-logfmt');
    expect(classify(cut).class).toBe('registry-unreachable');
    const noCause =
      'time="2019-10-29T15:33:25-07:00" level=warning msg="Failed to pull image. Waiting 4.273s before retrying..." error="failed to resolve reference "app:1": giving up"';
    expect(classify(noCause).class).toBe('image-pull-failed');
  });
});

describe("kubelet's missing imagePullSecret warning", () => {
  it('is no image-not-found: the secret is missing, the pull is still tried', () => {
    for (const line of [
      'W0707 09:20:09.034548   59778 kubelet_pods.go:883] Unable to retrieve pull secret default/docker-registry-poseidon for default/v2ray-x86-r5m29 due to secret "docker-registry-poseidon" not found.  The image pull may not succeed.',
      'Unable to retrieve some image pull secrets (qryn-write-test-regcred); attempting to pull the image may not succeed.',
    ])
      expect(classify(line).class, line).toBe('unknown');
    expect(
      classOf(
        'Failed to pull image "nginx:1.999": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.999": failed to resolve reference "docker.io/library/nginx:1.999": docker.io/library/nginx:1.999: not found',
      ),
    ).toBe('image-not-found');
  });
});

describe("containerd's resolver reading the registry's token challenge", () => {
  it('is no registry-auth: the 401 with Www-Authenticate is answered with a token on the next request', () => {
    for (const line of [
      'time="2018-01-17T06:05:33-05:00" level=debug msg="fetch response received" response.headers=map[Www-Authenticate:[Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/alpine:pull"]] status="401 Unauthorized" url="https://registry-1.docker.io/v2/library/alpine/manifests/latest"',
      'time="2018-01-17T06:05:33-05:00" level=debug msg=Unauthorized header="Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/alpine:pull""',
      'Jan 19 18:35:51 node containerd[1253]: time="2021-01-19T18:35:51.635972673Z" level=debug msg=Unauthorized header="Bearer realm=\\"https://r.example.com/v2/token\\",service=\\"r.example.com\\",scope=\\"repository:app:pull\\"" host=r.example.com',
    ])
      expect(classify(line).class, line).toBe('unknown');
  });

  it('keeps the refusal containerd reports as registry-auth', () => {
    for (const line of [
      'ctr: failed to resolve reference "artifactory.local/node:14.17.5-alpine": unexpected status code [manifests 14.17.5-alpine]: 401 Unauthorized',
      'failed to pull and unpack image "r.example.com/app:1": failed to resolve reference "r.example.com/app:1": failed to authorize: failed to fetch oauth token: unexpected status: 401 Unauthorized',
    ])
      expect(classify(line).class, line).toBe('registry-auth');
  });
});
