import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../lambdas/core/detect/classifier.js';
import { buildFilterPattern } from '../../lambdas/core/detect/filter-pattern.js';
import { SIGNATURES } from '../../lambdas/core/detect/signatures.js';
import { compileFilterPattern } from '../support/cloudwatch-filter.js';

/**
 * Node and CNI causes read from new field sources (test/fixtures/field/field-node-2.jsonl), each test citing the
 * line's source. Every failure line here must also pass the subscription filter built from the catalogue.
 */
const classOf = (m: string) => classifyMessage(m).class;
const passes = compileFilterPattern(buildFilterPattern());

describe('a full subnet is IP exhaustion whatever the cloud names it', () => {
  it("reads Azure's SubnetIsFull code (Karpenter for Azure launching into a full subnet) as ip-exhaustion", () => {
    // https://github.com/Azure/karpenter-provider-azure/issues/734
    for (const line of [
      'ERROR CODE: SubnetIsFull',
      'SubnetIsFull: Subnet /subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/one with address prefix 10.0.0.0/20 does not have enough capacity for 1 IP addresses',
    ]) {
      expect(classOf(line), line).toBe('ip-exhaustion');
      expect(passes(line), line).toBe(true);
    }
  });
});

describe("the Go runtime's failed thread is PID exhaustion only for EAGAIN", () => {
  it('reads newosproc with errno=22 (EINVAL, an amd64 binary under emulation) as no process limit', () => {
    // https://github.com/IBM/istio101/issues/185
    expect(classOf('runtime: failed to create new OS thread (have 2 already; errno=22)')).toBe('unknown');
    expect(classOf('runtime: failed to create new OS thread (have 3 already; errno=1)')).toBe('unknown');
    expect(classOf('runtime: failed to create new OS thread (have 11 already; errno=12)')).toBe('unknown');
  });

  it('keeps errno=11 (EAGAIN) and the bare throw as pid-exhaustion', () => {
    expect(classOf('runtime: failed to create new OS thread (have 772 already; errno=11)')).toBe('pid-exhaustion');
    expect(classOf('fatal error: newosproc')).toBe('pid-exhaustion');
  });
});

describe("the CRI's network status message alone is the plugin not ready", () => {
  it("reads 'Network plugin returns error: cni plugin not initialized' as ipamd-unavailable and lets it through", () => {
    // https://github.com/Azure/karpenter-provider-azure/issues/1639 (containerd internal/cri/server/status.go)
    const line = 'Network plugin returns error: cni plugin not initialized';
    expect(classOf(line)).toBe('ipamd-unavailable');
    expect(passes(line)).toBe(true);
  });
});

describe('wording variants of the same failure paths', () => {
  it("reads dockershim kubelet's 'Error while adding to cni network' as the CNI plugin failing", () => {
    // https://github.com/projectcalico/cni-plugin/issues/271
    const line =
      'E0215 12:17:49.099351    4933 cni.go:209] Error while adding to cni network: Failed to get IPv6 addresses for container veth';
    expect(classOf(line)).toBe('cni-failure');
    expect(passes(line)).toBe(true);
  });

  it("reads 'failed to assign IP address' without the article as the CNI's empty pool", () => {
    // https://www.cloudkeeper.com/insights/blog/why-your-amazon-eks-pods-are-stuck-pending-despite-available-ips
    expect(classOf('failed to assign IP address.')).toBe('ip-exhaustion');
  });

  it("reads systemd's PAM session setup failing with EAGAIN (its fork of the session child) as pid-exhaustion", () => {
    // https://yelogs.com/u/u_14529165/story/983b6c05-d8fa-424b-8b15-c53655d3fa92
    for (const line of [
      'Nov 18 14:09:51 localhost systemd[8911]: PAM failed: Resource temporarily unavailable',
      'Nov 18 14:09:51 localhost systemd[8911]: user@0.service: Failed to set up PAM session: Resource temporarily unavailable',
    ]) {
      expect(classOf(line), line).toBe('pid-exhaustion');
      expect(passes(line), line).toBe(true);
    }
    // A PAM module's own error is PAM's string, not an errno: no process limit.
    expect(classOf('systemd[1]: PAM failed: Authentication failure')).toBe('unknown');
  });
});

describe("the VPC resource controller's unsupported instance type", () => {
  it("reads node.go's 'not supported yet by the vpc resource controller' event as branch-eni and lets it through", () => {
    // https://github.com/aws/karpenter-provider-aws/issues/8981 (amazon-vpc-resource-controller-k8s pkg/node/node.go)
    const line = 'Unsupported: The instance type r8a.xlarge is not supported yet by the vpc resource controller';
    expect(classOf(line)).toBe('branch-eni');
    expect(passes(line)).toBe(true);
    // The Windows provider's own event for the same cause stays windows-ipam.
    expect(classOf('The instance type t3.nano is not supported for Windows')).toBe('windows-ipam');
  });
});

describe('ipamd without limits for its instance type, and a sandbox torn down', () => {
  it("reads ipamd's failed hypervisor lookup for an unknown instance type as ipamd not starting", () => {
    // https://github.com/aws/amazon-vpc-cni-k8s/pull/1601
    for (const line of [
      'Failed to get hypervisor info due to unknown instance type m6i.large',
      '{"level":"error","ts":"2021-09-03T15:24:56.448Z","caller":"aws-k8s-agent/main.go:56","msg":"Failed to get hypervisor type"}',
    ]) {
      expect(classOf(line), line).toBe('ipamd-unavailable');
      expect(passes(line), line).toBe(true);
    }
  });

  it("reads kubelet's KillPodSandbox teardown failure as no pod start failing, but keeps a set-up failure beside a teardown", () => {
    // https://github.com/aws/amazon-vpc-cni-k8s/issues/155
    expect(
      classOf(
        'error killing pod: failed to "KillPodSandbox" for "7b36ece3" with KillPodSandboxError: "rpc error: code = Unknown desc = NetworkPlugin cni failed to teardown pod \\"x_lumo\\" network: rpc error: code = Unavailable desc = grpc: the connection is unavailable"',
      ),
    ).toBe('unknown');
    expect(
      classOf(
        'Failed create pod sandbox: rpc error: code = Unknown desc = NetworkPlugin cni failed to set up pod "x_lumo" network: add command: failed to setup network: setup NS network: failed to Statfs "/proc/1577/ns/net": no such file or directory',
      ),
    ).toBe('cni-failure');
  });
});

describe('Node.js failing to start its libuv worker thread', () => {
  it("reads node_platform.cc's uv_thread_create assertion as a thread the process could not create", () => {
    // https://github.com/opensandbox-group/OpenSandbox/issues/493
    const line = '#  Assertion failed: (0) == (uv_thread_create(t.get(), start_thread, this))';
    expect(classOf(line)).toBe('pid-exhaustion');
    expect(passes(line)).toBe(true);
    expect(classOf('uv_thread_create returned 0, worker started')).toBe('unknown');
  });
});

describe("an application's AWS SDK refusing the Pod Identity endpoint", () => {
  it("reads aws-sdk-go's 'HTTP credential provider invalid endpoint host' as no image pull refused", () => {
    // https://github.com/kubernetes/autoscaler/issues/6392, https://github.com/getsentry/vroom/issues/661
    expect(
      classOf(
        'Ignoring, HTTP credential provider invalid endpoint host, "169.254.170.23", only loopback hosts are allowed.',
      ),
    ).toBe('unknown');
  });
});

describe("Cilium's own IP allocation failing on a full range", () => {
  it('reads the agent\'s fatal "Error while allocating cilium-health IP" with error="range is full" as ip-exhaustion that passes the filter on the signature\'s own term', () => {
    // https://github.com/cilium/cilium/issues/5517
    const line = 'level=fatal msg="Error while allocating cilium-health IP" error="range is full" subsys=daemon';
    expect(classifyMessage(line).signature).toBe('ip.datastore-empty');
    expect(classOf(line)).toBe('ip-exhaustion');
    const own = compileFilterPattern(
      (SIGNATURES.find((s) => s.id === 'ip.datastore-empty')?.filter ?? []).map((t) => `?"${t}"`).join(' '),
    );
    expect(own(line)).toBe(true);
    expect(passes(line)).toBe(true);
  });
});
