import { describe, expect, it } from 'vitest';
import { classify, classifyMessage } from '../../lambdas/core/detect/classifier.js';
import { extractEntities, registryHost } from '../../lambdas/core/detect/entities.js';
import { parseRecord } from '../../lambdas/core/detect/records.js';
import { CATALOGUE_VERSION } from '../../lambdas/core/detect/signatures.js';
import { corpus } from '../support/fixtures.js';

const SEED_401 = corpus()[0].line;

describe('entity extraction', () => {
  it('reads the sandbox image, ECR account and region from the seed 401 line', () => {
    expect(classify(SEED_401).entities).toMatchObject({
      sandboxImage: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5',
      image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5',
      registryHost: '602401143452.dkr.ecr.us-east-1.amazonaws.com',
      ecrAccount: '602401143452',
      ecrRegion: 'us-east-1',
    });
  });

  it('reads pod and namespace from klog structured fields with escaped quotes', () => {
    const c = classify(
      'E1104 10:12:01.123456    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to get sandbox image \\"localhost/kubernetes/pause\\": failed to pull image \\"localhost/kubernetes/pause\\": not found" pod="kube-system/coredns-789f8477df-abcde" podUID="0c1f"',
    );
    expect(c.class).toBe('sandbox-image');
    expect(c.format).toBe('klog');
    expect(c.entities).toMatchObject({
      pod: 'coredns-789f8477df-abcde',
      namespace: 'kube-system',
      sandboxImage: 'localhost/kubernetes/pause',
    });
  });

  it('reads pod and namespace from the CNI arguments', () => {
    expect(
      extractEntities(
        'Received CNI add request: Args(K8S_POD_INFRA_CONTAINER_ID=68ca;K8S_POD_UID=0e1e;IgnoreUnknown=1;K8S_POD_NAMESPACE=bar;K8S_POD_NAME=foo) failed to assign an IP address to container',
      ),
    ).toMatchObject({ pod: 'foo', namespace: 'bar' });
  });

  it('reads pod_namespace of the networkPlugin wording and the node of old kubectl rows', () => {
    const c = classify(corpus().find((l) => l.line.includes('nginx-6bf9f7cf5d-22q48_default'))?.line ?? '');
    expect(c.entities).toMatchObject({ pod: 'nginx-6bf9f7cf5d-22q48', namespace: 'default' });
    const old = classify(corpus().find((l) => l.line.startsWith('kubelet, ip-192'))?.line ?? '');
    expect(old.entities.node).toBe('ip-192-168-0-1.us-east-1.compute.internal');
  });

  it('reads subnet, ENI and the EC2 error code from ipamd', () => {
    const c = classify(
      '{"level":"error","ts":"2024-03-02T08:11:45.201Z","caller":"ipamd/ipamd.go:874","msg":"failed to create ENI: InsufficientFreeAddressesInSubnet: The specified subnet subnet-0a1b2c3d4e5f67890 does not have enough free addresses on eni-0123456789abcdef0"}',
    );
    expect(c.entities).toMatchObject({
      subnetId: 'subnet-0a1b2c3d4e5f67890',
      eniId: 'eni-0123456789abcdef0',
      errorCode: 'InsufficientFreeAddressesInSubnet',
    });
  });

  it('takes node and instance id from the Container Insights envelope', () => {
    const c = classify(
      '{"hostname":"ip-10-0-1-2.ec2.internal","systemd_unit":"kubelet.service","ec2_instance_id":"i-0123456789abcdef0","message":"runtime: failed to create new OS thread (have 2 already; errno=11)"}',
    );
    expect(c).toMatchObject({ class: 'pid-exhaustion', format: 'container-insights' });
    expect(c.entities).toMatchObject({ node: 'ip-10-0-1-2.ec2.internal', instanceId: 'i-0123456789abcdef0' });
  });

  it('reads a dataplane journal message as the same journal line: program context and logfmt fields', () => {
    const script = 'Unable to locate credentials. You can configure credentials by running "aws configure".';
    const journal = `Sep 22 12:17:04 ip-10-0-1-2.ec2.internal pull-sandbox-image.sh[3906]: ${script}`;
    const dataplane = JSON.stringify({
      hostname: 'ip-10-0-1-2.ec2.internal',
      systemd_unit: 'sandbox-image.service',
      syslog_identifier: 'pull-sandbox-image.sh',
      message: script,
    });
    expect(classify(journal).class).toBe('sandbox-image');
    expect(classify(dataplane)).toMatchObject({ class: 'sandbox-image', format: 'container-insights' });
    // The same text from a program that names no sandbox image stays unknown.
    expect(classify(JSON.stringify({ hostname: 'h', systemd_unit: 'backup.service', message: script })).class).toBe(
      'unknown',
    );
    const logfmt =
      'level=warning msg="Unable to synchronize EC2 interface list" error="UnauthorizedOperation: You are not authorized to perform this operation." subsys=eni';
    expect(classify(logfmt).class).toBe('cni-permissions');
    expect(classify(JSON.stringify({ hostname: 'h', systemd_unit: 'cilium.service', message: logfmt })).class).toBe(
      'cni-permissions',
    );
  });

  it('reads a JSON line behind kubectl logs --timestamps / --prefix or a CRI log-file prefix as JSON, not as a journal line', () => {
    const zap =
      '{"level":"error","ts":"2020-11-21T12:18:10.773Z","caller":"aws-k8s-agent/main.go:28","msg":"Initialization failure: ipamd: can not initialize with AWS SDK interface: refreshSGIDs: unable to update the ENI\'s SG: InvalidNetworkInterfaceID.NotFound: The networkInterface ID \'eni-0a1b2c3d\' does not exist"}';
    const bare = classify(zap);
    expect(bare.class).toBe('ipamd-unavailable');
    for (const line of [
      `2026-11-30T12:00:00.123456789Z ${zap}`,
      `[pod/aws-node-x7k2p/aws-node] 2026-11-30T12:00:00.123456789Z ${zap}`,
      // The CRI runtime's container log file, tailed as text.
      `2026-11-30T12:00:00.123456789Z stdout F ${zap}`,
    ]) {
      const c = classify(line);
      expect(c).toMatchObject({ class: bare.class, format: 'ipamd-json' });
      expect(c.entities.node).toBeUndefined();
    }
  });

  it('takes node and instance id from the Container Insights envelope of aws-node stdout (ipamd JSON inside)', () => {
    const ipamd = JSON.stringify({
      level: 'error',
      ts: '2024-03-02T08:11:45.201Z',
      caller: 'rpc/rpc.pb.go:863',
      msg: 'DataStore has no available IP/Prefix addresses',
    });
    const record = JSON.stringify({
      log: `${ipamd}\n`,
      stream: 'stdout',
      kubernetes: {
        pod_name: 'aws-node-x8k2p',
        namespace_name: 'kube-system',
        container_name: 'aws-node',
        host: 'ip-10-0-1-2.eu-west-1.compute.internal',
      },
      ec2_instance_id: 'i-0123456789abcdef0',
    });
    const c = classify(record);
    expect(c).toMatchObject({
      class: 'ip-exhaustion',
      format: 'container-insights',
      message: 'DataStore has no available IP/Prefix addresses',
    });
    expect(c.entities).toMatchObject({
      node: 'ip-10-0-1-2.eu-west-1.compute.internal',
      instanceId: 'i-0123456789abcdef0',
    });
    expect(parseRecord(record).source).toBe('aws-node');
  });

  it.each([
    ['nginx:latest', 'docker.io'],
    ['library/nginx', 'docker.io'],
    ['ghcr.io/acme/app:1', 'ghcr.io'],
    ['localhost/kubernetes/pause', 'localhost'],
    ['127.0.0.1:5000/eks/pause:3.10', '127.0.0.1:5000'],
  ])('registry host of %s is %s', (image, host) => {
    expect(registryHost(image)).toBe(host);
  });
});

describe('precision', () => {
  it.each([
    'Pulling sandbox image..',
    '  Normal   Pulling    1s    kubelet            Pulling image "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5"',
    'I1104 10:12:05.000001    3412 kuberuntime_manager.go:1080] "Creating PodSandbox for pod" pod="default/web-7d9c8"',
    'time="2024-11-04T10:12:02Z" level=info msg="PullImage \\"localhost/kubernetes/pause:latest\\" returns image reference \\"sha256:abc\\""',
    '',
  ])('leaves %j unknown', (line) => {
    expect(classify(line).class).toBe('unknown');
  });

  it('classifies retries of the same error the same way (x15 rows, structured and raw)', () => {
    const rows = [SEED_401, SEED_401.replace('(x15 over 3m11s)', '(x16 over 3m41s)')];
    expect(new Set(rows.map((r) => classify(r).class))).toEqual(new Set(['sandbox-image']));
  });

  it('does not read an API-server timeout on the node as a registry failure', () => {
    expect(
      classifyMessage(
        'Failed to update lease: Put "https://ABC.eks.amazonaws.com/apis": dial tcp 10.0.0.1:443: i/o timeout',
      ).class,
    ).toBe('unknown');
  });

  it('prefers the specific cause: a full disk during a pull is disk-full', () => {
    expect(
      classifyMessage(
        'Failed to pull image "x/y:1": failed to extract layer: write /var/lib/containerd/x: no space left on device',
      ).class,
    ).toBe('disk-full');
  });

  it('prefers InsufficientCidrBlocks over the generic IP assignment failure', () => {
    expect(classifyMessage('add cmd: failed to assign an IP address to container: InsufficientCidrBlocks').class).toBe(
      'cidr-fragmentation',
    );
  });

  it.each([
    [
      'Error response from daemon: Get "https://registry.corp/v2/": dial tcp: lookup registry.corp: Temporary failure in name resolution',
      'registry-unreachable',
    ],
    [
      'Failed to pull image "registry.corp:5000/app:1": failed to do request: Head "https://registry.corp:5000/v2/app/manifests/1": http: server gave HTTP response to HTTPS client',
      'registry-tls',
    ],
    [
      'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "abc": failed to find plugin "aws-cni" in path [/opt/cni/bin]',
      'cni-failure',
    ],
  ])('names the cause of %j', (line, cls) => {
    expect(classify(line).class).toBe(cls);
  });

  it('reads a runtime that does not serve CRI v1 as a runtime failure, in the shapes its callers print', () => {
    const status = 'rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService';
    for (const line of [
      `time="2026-11-30T12:00:00Z" level=fatal msg="validate service connection: CRI v1 runtime API is not implemented for endpoint \\"unix:///run/containerd/containerd.sock\\": ${status}"`,
      `E1130 12:00:00.000000    1234 run.go:74] "command failed" err="failed to run Kubelet: validate service connection: CRI v1 runtime API is not implemented for endpoint \\"unix:///run/containerd/containerd.sock\\": ${status}"`,
      `FATA[0000] listing containers: ${status}`,
    ])
      expect(classify(line).signature, line).toBe('runtime.cri-unimplemented');
    // Another gRPC service a server does not register is no container runtime's failure.
    expect(classify('rpc error: code = Unimplemented desc = unknown service grpc.health.v1.Health').class).toBe(
      'unknown',
    );
  });

  it("reads the Go runtime's newosproc throw as its errno print: EAGAIN unless errno=12 is on the line", () => {
    expect(classify('fatal error: newosproc').class).toBe('pid-exhaustion');
    expect(
      classify('runtime: failed to create new OS thread (have 7 already; errno=12) fatal error: newosproc').class,
    ).toBe('unknown');
  });

  it('records the catalogue version', () => {
    expect(classify(SEED_401).catalogueVersion).toBe(CATALOGUE_VERSION);
  });
});

describe('malformed input', () => {
  it.each([
    ['{"message": broken', /invalid JSON/],
    ['{"message":"x"} trailing', /invalid JSON/],
    ['{"foo":"bar"}', /no message, msg or log field/],
    ['   ', /empty record/],
  ])('%j is unknown with an error', (line, error) => {
    const c = classify(line);
    expect(c.class).toBe('unknown');
    expect(c.error).toMatch(error);
  });

  it('truncates huge records instead of scanning megabytes', () => {
    const p = parseRecord(`${'x'.repeat(1_000_000)} no space left on device`);
    expect(p.message.length).toBeLessThanOrEqual(256 * 1024);
  });
});

describe('tenant names that look like refusals (found by the storm in bench/storm.ts)', () => {
  const notFound = (pod: string, image: string) =>
    `E1130 08:00:01.000000    3412 remote_image.go:180] "Failed to pull image" err="rpc error: code = NotFound desc = failed to pull and unpack image \\"${image}\\": failed to resolve reference \\"${image}\\": ${image}: not found" pod="team-1/${pod}" image="${image}"`;

  it.each([
    ['app-401', 'docker.io/team/app:v9'],
    ['unauthorized-app-0', 'docker.io/team/app:v9'],
    ['web-1', 'docker.io/team/app-403:v9'],
    ['web-2', 'docker.io/forbidden/app:401'],
  ])('pod %s pulling %s is image-not-found, not registry-auth', (pod, image) => {
    expect(classify(notFound(pod, image)).class).toBe('image-not-found');
  });

  it('a 401 or Unauthorized that stands alone still is registry-auth', () => {
    for (const line of [
      'failed to resolve reference "docker.io/team/app:v9": pulling from host docker.io failed with status code [manifests v9]: 401 Unauthorized',
      'Failed to pull image "x.io/a/b:1": rpc error: code = Unknown desc = failed to authorize: failed to fetch anonymous token: unexpected status: 403 Forbidden',
      'Error response from daemon: Head "https://x.io/v2/a/b/manifests/1": unauthorized: authentication required',
    ])
      expect(classify(line).class, line).toBe('registry-auth');
  });
});
