import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../lambdas/core/classifier.js';

/**
 * Pull and sandbox-image causes met in new field sources (test/fixtures/field/field-pull-2.jsonl), each
 * fixed by the program path that prints it, with the look-alike that must keep its class.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe("containerd's resolver: failed to do request", () => {
  // https://github.com/containerd/containerd/issues/11365 (the pasted line stops at the URL)
  it('reads a failed HTTP request while pulling as the registry path failing, whatever the wrapped error', () => {
    expect(
      classOf(
        'ctr: failed to copy: httpReadSeeker: failed open: failed to do request: Get "https://registry.example.com/v2/app/blobs/sha256:0f"',
      ),
    ).toBe('registry-unreachable');
  });

  it('keeps a certificate error inside the same request registry-tls', () => {
    expect(
      classOf(
        'failed to resolve reference "registry.example.com/app:1": failed to do request: Head "https://registry.example.com/v2/app/manifests/1": x509: certificate signed by unknown authority',
      ),
    ).toBe('registry-tls');
  });
});

describe("kubelet's pull progress deadline (dockershim)", () => {
  // https://github.com/kubernetes/kubernetes/pull/26677
  it('reads a pull cancelled for no progress as the registry path stalling', () => {
    expect(
      classOf(
        'E0601 18:48:29.026003   46185 kube_docker_client.go:274] Cancel pulling image "nginx:latest" because of no progress for 1m0s, latest progress: "89732b811e7f: Pulling fs layer "',
      ),
    ).toBe('registry-unreachable');
  });

  // https://github.com/kubernetes/kubernetes/pull/69141
  it('keeps the end of a pull that found the image up to date unknown', () => {
    expect(
      classOf(
        'I0822 15:31:12.895399    1018 kube_docker_client.go:348] Stop pulling image "registry.example.com/app:1": "Status: Image is up to date for registry.example.com/app:1"',
      ),
    ).toBe('unknown');
  });
});

describe("a remote snapshotter's blob fetch (SOCI)", () => {
  // https://github.com/awslabs/soci-snapshotter/issues/1148
  it("reads a refused blob as the registry's refusal and the token step before it as nothing", () => {
    expect(
      classOf(
        '{"error":"failed to refresh URL: status 403 Forbidden","key":"sha256:0f","level":"warning","msg":"failed to connect to blob"}',
      ),
    ).toBe('registry-auth');
    expect(classOf('{"level":"info","msg":"Received status code: 403 Forbidden. Authorizing..."}')).toBe('unknown');
  });
});

describe('the pause image that dockershim pulls inside RunPodSandbox', () => {
  // https://github.com/aws/amazon-vpc-cni-k8s/issues/917
  it("reads dockerd's pull error in a failed sandbox creation as the sandbox image, with no image named", () => {
    expect(
      classOf(
        'Failed create pod sandbox: rpc error: code = Unknown desc = error pulling image configuration: error parsing HTTP 403 response body: invalid character \'<\' looking for beginning of value: "<Error><Code>AccessDenied</Code></Error>"',
      ),
    ).toBe('sandbox-image');
    expect(
      classOf(
        'Failed create pod sandbox: rpc error: code = Unknown desc = Error response from daemon: Get https://registry.example.com/v2/: net/http: TLS handshake timeout',
      ),
    ).toBe('sandbox-image');
  });

  it("keeps an application image's pull and a sandbox's network failure in their own classes", () => {
    expect(
      classOf(
        'Failed to pull image "registry.example.com/app:1": rpc error: code = Unknown desc = Error response from daemon: Get https://registry.example.com/v2/app/manifests/1: no basic auth credentials',
      ),
    ).toBe('registry-auth');
    expect(
      classOf(
        'Failed create pod sandbox: rpc error: code = Unknown desc = NetworkPlugin cni failed to set up pod "web-0_default" network: add cmd: failed to assign an IP address to container',
      ),
    ).toBe('ip-exhaustion');
  });
});
