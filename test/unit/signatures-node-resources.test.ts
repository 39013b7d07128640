import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../lambdas/core/detect/classifier.js';

/**
 * A node running out of what pods need: the kernel refusing a new task (PIDs, threads), kubelet's disk and
 * PID pressure and its eviction manager. Read from the emitting programs' own strings (kubelet node
 * conditions and eviction messages, the Go runtime's newosproc, glibc/bash fork errors, libstdc++), each
 * with a look-alike that shares its words but not its cause.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe('PID exhaustion by any wording of the kernel refusing a new task', () => {
  it('reads ENOSPC from pthread_create/fork as PIDs, a full filesystem as disk', () => {
    expect(classOf('runtime/cgo: pthread_create failed: No space left on device')).toBe('pid-exhaustion');
    expect(classOf('bash: fork: retry: No space left on device')).toBe('pid-exhaustion');
    expect(classOf('write /var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db: no space left on device')).toBe(
      'disk-full',
    );
  });

  it('takes errno=11 (EAGAIN) from the Go runtime, not errno=12 (ENOMEM)', () => {
    expect(classOf('runtime: failed to create new OS thread (have 12 already; errno=11)')).toBe('pid-exhaustion');
    expect(classOf('runtime: failed to create new OS thread (have 12 already; errno=12)')).toBe('unknown');
  });

  it("reads kubelet's eviction for the pids signal", () => {
    expect(classOf('The node was low on resource: pids. Threshold quantity: 3276, available: 2904.')).toBe(
      'pid-exhaustion',
    );
  });
});

describe('disk pressure as kubelet reports it', () => {
  it('is disk-full for the condition, its event and its eviction; never for "no disk pressure"', () => {
    expect(classOf('Node ip-10-0-1-2.ec2.internal status is now: NodeHasDiskPressure')).toBe('disk-full');
    expect(classOf('The node had condition: [DiskPressure]. ')).toBe('disk-full');
    expect(
      classOf('DiskPressure True Mon, 30 Nov 2026 10:00:00 +0000 KubeletHasDiskPressure kubelet has disk pressure'),
    ).toBe('disk-full');
    expect(classOf('Node ip-10-0-1-2.ec2.internal status is now: NodeHasNoDiskPressure')).toBe('unknown');
    expect(
      classOf(
        'DiskPressure False Mon, 30 Nov 2026 10:00:00 +0000 KubeletHasNoDiskPressure kubelet has no disk pressure',
      ),
    ).toBe('unknown');
  });
});

describe('PID exhaustion through bash', () => {
  it('reads "fork: retry:" as EAGAIN from fork whatever errno text bash prints after it', () => {
    expect(classOf('-bash: fork: retry: No child processes')).toBe('pid-exhaustion');
    expect(classOf('bash: fork: retry: Resource temporarily unavailable')).toBe('pid-exhaustion');
    expect(classOf('retry: waiting 5s before the next fetch')).toBe('unknown');
  });
});

describe("kubelet's eviction manager", () => {
  it('reads its failure to rank pods for a disk signal as the disk filling up, its routine observations as nothing', () => {
    expect(classOf('eviction manager: no ranking function for resource imagefs')).toBe('disk-full');
    expect(
      classOf(
        'eviction manager: observations after resource reclaim: signal=imagefs.available, available: 143150240Ki, capacity: 204700Mi',
      ),
    ).toBe('unknown');
  });
});

describe("kubelet's PID pressure", () => {
  it("reads its taint and the eviction's node condition as PID exhaustion, as disk pressure is read", () => {
    expect(
      classOf(
        '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/pid-pressure: }, 2 node(s) had untolerated taint {dedicated: gpu}.',
      ),
    ).toBe('pid-exhaustion');
    expect(classOf('The node had condition: [PIDPressure]. ')).toBe('pid-exhaustion');
    expect(classOf('Node ip-10-0-1-2.ec2.internal status is now: NodeHasSufficientPID')).toBe('unknown');
  });
});

describe("C++'s std::thread without a PID left", () => {
  it('reads std::system_error with EAGAIN as PID exhaustion, as a joined paste and as its what() line', () => {
    expect(
      classOf(
        "terminate called after throwing an instance of 'std::system_error'   what():  Resource temporarily unavailable",
      ),
    ).toBe('pid-exhaustion');
    expect(classOf('  what():  Resource temporarily unavailable')).toBe('pid-exhaustion');
    expect(classOf("terminate called after throwing an instance of 'std::bad_alloc'   what():  std::bad_alloc")).toBe(
      'unknown',
    );
  });
});
