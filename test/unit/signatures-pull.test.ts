import { describe, expect, it } from 'vitest';
import { classify, classifyMessage } from '../../lambdas/core/detect/classifier.js';

/**
 * Getting an image onto the node: registries unreachable or refusing, image pulls, the pause (sandbox)
 * image, registry tokens, and the API server's refusals that are no registry's. Each with a look-alike
 * that must not match.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe("the node's pause image archive", () => {
  it("reads nodeadm's pause archive errors as sandbox-image", () => {
    expect(classOf('checking pause image archive: stat /etc/eks/pause.tar: no such file or directory')).toBe(
      'sandbox-image',
    );
    expect(classOf('Successfully imported pause image into SOCI snapshotter')).toBe('unknown');
  });
});

describe('image-not-found needs an image context, not the program that logs', () => {
  it("keeps dockerd's teardown 'not found' unknown and a registry's 'not found' image-not-found", () => {
    expect(
      classify(
        'Apr 27 20:19:50 node-1 dockerd[1044]: time="2026-04-27T20:19:50.549Z" level=error msg="error locating sandbox id 048aefc4: sandbox 048aefc4 not found"',
      ).class,
    ).toBe('unknown');
    expect(classOf('failed to resolve reference "docker.io/acme/web:v9": docker.io/acme/web:v9: not found')).toBe(
      'image-not-found',
    );
  });
});

describe('registry network errors as Windows nodes word them', () => {
  it('reads connectex / wsarecv while pulling as unreachable, not outside a pull', () => {
    expect(
      classOf(
        'Failed to pull image "mcr.microsoft.com/windows/servercore:ltsc2019": failed to do request: Head "https://mcr.microsoft.com/v2/windows/servercore/manifests/ltsc2019": read tcp 10.0.1.5:49710->204.79.197.219:443: wsarecv: An existing connection was forcibly closed by the remote host.',
      ),
    ).toBe('registry-unreachable');
    expect(classOf('wsarecv: An existing connection was forcibly closed by the remote host.')).toBe('unknown');
  });
});

describe('a pause image by any name', () => {
  it('reads the bare "pause" image, the kubelet flag spellings and containerd/nodeadm sandboxImage', () => {
    expect(
      classOf(
        'failed pulling image "pause": Error response from daemon: pull access denied for pause, repository does not exist or may require \'docker login\'',
      ),
    ).toBe('sandbox-image');
    expect(
      classOf('failed to resolve sandboxImage 602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause: unauthorized'),
    ).toBe('sandbox-image');
    expect(classOf('Image "pause" already present on machine')).toBe('unknown');
  });
});

describe('registry-auth needs the image-credential path, not any AWS SDK client without credentials', () => {
  it("reads kubelet's ECR credential provider, not cert-manager's or the autoscaler's", () => {
    expect(
      classOf('while getting AWS credentials NoCredentialProviders: no valid providers in chain. Deprecated.'),
    ).toBe('registry-auth');
    expect(
      classOf(
        'Failed to generate AWS EC2 Instance Types: NoCredentialProviders: no valid providers in chain. Deprecated.',
      ),
    ).toBe('unknown');
    expect(
      classOf(
        'failed to change Route 53 record set: operation error Route 53: ChangeResourceRecordSets, get identity: get credentials: failed to refresh cached credentials, no EC2 IMDS role found',
      ),
    ).toBe('unknown');
  });
});

describe('image copies that break mid-blob', () => {
  it('reads a reset or EOF while writing or copying a blob as the registry path failing', () => {
    expect(classOf('writing blob: happened during read: unexpected EOF')).toBe('registry-unreachable');
    expect(
      classOf('copying blob sha256:ab12: read tcp 10.0.0.5:5123->3.3.3.3:443: read: connection reset by peer'),
    ).toBe('registry-unreachable');
    expect(classOf('writing config: unexpected EOF in JSON body')).toBe('unknown');
  });
});

describe('Windows resolver wording', () => {
  it('reads "No such host is known" looking up a registry as unreachable', () => {
    expect(classOf('lookup registry-1.docker.io: getaddrinfow: No such host is known.')).toBe('registry-unreachable');
    expect(classOf('lookup db.internal: getaddrinfow: No such host is known.')).toBe('unknown');
  });
});

describe('HTTP/2 and HTTP/1 transport breaks (Go net/http) while pulling', () => {
  it('reads GOAWAY, a stream error and a broken transport in a pull as the registry path failing, not elsewhere', () => {
    expect(
      classOf(
        'Failed to pull image "acme/api:1.2": failed to copy: read tcp 10.0.1.5:443: http2: server sent GOAWAY and closed the connection; LastStreamID=1999',
      ),
    ).toBe('registry-unreachable');
    expect(
      classOf(
        'error pulling image configuration: download failed after attempts=1: stream error: stream ID 3; INTERNAL_ERROR',
      ),
    ).toBe('registry-unreachable');
    expect(classOf('apiserver: http2: server sent GOAWAY and closed the connection')).toBe('unknown');
  });
});

describe("containerd's pull-progress timeout", () => {
  it('reads a pull cancelled for want of progress (image_pull.go) as the registry path stalling, its stop report as nothing', () => {
    expect(
      classOf(
        'cancel pulling image 111122223333.dkr.ecr.us-east-1.amazonaws.com/app:v1 because of no progress in 1m0s',
      ),
    ).toBe('registry-unreachable');
    expect(
      classOf(
        'stop pulling image 111122223333.dkr.ecr.us-east-1.amazonaws.com/app:v1: active requests=0, bytes read=52428800',
      ),
    ).toBe('unknown');
  });
});

describe("the Kubernetes API server's refusals", () => {
  it('reads an RBAC denial as no registry refusal, even of secrets or daemonsets', () => {
    for (const m of [
      'secrets "regcred" is forbidden: User "system:serviceaccount:default:builder" cannot get resource "secrets" in API group "" in the namespace "default"',
      'daemonsets.apps is forbidden: User "system:node:ip-10-0-1-2" cannot list resource "daemonsets" in API group "apps" at the cluster scope',
      'Failed to watch *v1.Secret: failed to list *v1.Secret: secrets is forbidden: User "system:serviceaccount:kube-system:lbc" cannot list resource "secrets"',
    ])
      expect(classOf(m), m).toBe('unknown');
    expect(
      classOf(
        'Failed to pull image "123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:1": failed to resolve reference: unexpected status from HEAD request: 403 Forbidden',
      ),
    ).toBe('registry-auth');
  });
});

describe("a token that is not the registry's", () => {
  it("reads a session's or a service account's token refused as no registry refusal, the registry's token flow as one", () => {
    for (const m of [
      'rpc error: code = Unauthenticated desc = invalid session: token has invalid claims: token is expired',
      'Failed to get token for service account default/app: 403 Forbidden',
    ])
      expect(classOf(m), m).toBe('unknown');
    expect(
      classOf(
        'failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://auth.docker.io/token?scope=repository%3Alibrary%2Fx%3Apull&service=registry.docker.io: 401 Unauthorized',
      ),
    ).toBe('registry-auth');
    expect(
      classOf(
        'failed to fetch oauth token: unexpected status from POST request to https://quay.io/v2/auth: 403 Forbidden',
      ),
    ).toBe('registry-auth');
  });
});
