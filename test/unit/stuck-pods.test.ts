import { describe, expect, it } from 'vitest';
import {
  asStuckPod,
  classifyPodEvents,
  dominantClass,
  isRunningAndReady,
  type PodObject,
} from '../../lambdas/core/detect/stuck-pods.js';

function pod(waiting: string[], phase = 'Pending', extra: Partial<PodObject> = {}): PodObject {
  return {
    metadata: { name: 'web-1', namespace: 'shop', creationTimestamp: '2026-11-30T10:00:00Z' },
    spec: { nodeName: 'ip-10-0-1-2.ec2.internal' },
    status: {
      phase,
      containerStatuses: waiting.map((reason, i) => ({
        name: `c${i}`,
        image: `img${i}:1`,
        state: { waiting: { reason } },
      })),
    },
    ...extra,
  };
}

describe('stuck pods', () => {
  it('names the pull failure over ContainerCreating when containers disagree, with the waiting images', () => {
    const p = asStuckPod(pod(['ContainerCreating', 'ImagePullBackOff']));
    expect(p).toMatchObject({ reason: 'ImagePullBackOff', images: ['img1:1'], nodeName: 'ip-10-0-1-2.ec2.internal' });
    expect(p?.createdAt).toBe('2026-11-30T10:00:00.000Z');
  });

  it('corroborates the binding only when a kubelet wrote the status (status.hostIP beside spec.nodeName)', () => {
    expect(asStuckPod(pod(['ContainerCreating']))?.statusFromNode).toBeUndefined();
    const written = pod(['ContainerCreating']);
    const byKubelet = { ...written, status: { ...written.status, hostIP: '10.0.1.2' } };
    expect(asStuckPod(byKubelet)?.statusFromNode).toBe(true);
  });

  it('counts init containers stuck pulling', () => {
    const p = pod([]);
    const withInit: PodObject = {
      ...p,
      status: {
        phase: 'Pending',
        initContainerStatuses: [{ image: 'init:1', state: { waiting: { reason: 'ErrImagePull' } } }],
      },
    };
    expect(asStuckPod(withInit)?.reason).toBe('ErrImagePull');
  });

  it('ignores running pods, other waiting reasons, and pods without a name', () => {
    expect(asStuckPod(pod(['ContainerCreating'], 'Running'))).toBeUndefined();
    expect(asStuckPod(pod(['PodInitializing']))).toBeUndefined();
    expect(asStuckPod(pod(['CrashLoopBackOff']))).toBeUndefined();
    expect(asStuckPod({ status: pod(['ContainerCreating']).status })).toBeUndefined();
  });

  it('knows the controller kind (only controller-owned pods may be evicted for re-creation)', () => {
    const owned = pod(['ContainerCreating'], 'Pending', {
      metadata: { name: 'a', namespace: 'b', ownerReferences: [{ kind: 'ReplicaSet', controller: true }] },
    });
    expect(asStuckPod(owned)?.controller).toBe('ReplicaSet');
    expect(asStuckPod(pod(['ContainerCreating']))?.controller).toBeUndefined();
  });

  it('is running and ready only when every container runs and is ready', () => {
    const running = (ready: boolean[]): PodObject => ({
      status: { phase: 'Running', containerStatuses: ready.map((r) => ({ ready: r, state: { running: {} } })) },
    });
    expect(isRunningAndReady(running([true, true]))).toBe(true);
    expect(isRunningAndReady(running([true, false]))).toBe(false);
    expect(isRunningAndReady(running([]))).toBe(false);
    expect(isRunningAndReady(pod(['ContainerCreating']))).toBe(false);
  });
});

describe('pod events', () => {
  const events = [
    { reason: 'Scheduled', type: 'Normal', message: 'Successfully assigned default/x to node' },
    { reason: 'BackOff', type: 'Normal', message: 'Back-off pulling image "nginx:stable"', count: 4 },
    {
      reason: 'Failed',
      type: 'Warning',
      count: 3,
      message:
        'Failed to pull image "nginx:stable": rpc error: code = Unknown desc = Error response from daemon: Get "https://registry-1.docker.io/v2/": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)',
    },
  ];

  it('keeps only cause events (BackOff is reported as Normal by kubelet) and classifies them, a bare back-off by the pod’s other events', () => {
    const c = classifyPodEvents(events);
    expect(c.map((e) => `${e.reason}:${e.class}:${e.by}`)).toEqual([
      'BackOff:registry-unreachable:history',
      'Failed:registry-unreachable:message',
    ]);
    // Alone, the back-off names no cause.
    expect(classifyPodEvents(events.slice(0, 2)).map((e) => `${e.reason}:${e.class}`)).toEqual([
      'BackOff:image-pull-failed',
    ]);
  });

  it('takes the most specific class: a cause beats a bare back-off, whatever the counts', () => {
    expect(dominantClass(classifyPodEvents(events))).toBe('registry-unreachable');
    expect(dominantClass(classifyPodEvents(events.slice(0, 2)))).toBe('image-pull-failed');
    expect(dominantClass([])).toBe('unknown');
  });

  it('caps tenant-controlled messages', () => {
    const [e] = classifyPodEvents([{ reason: 'Failed', message: `Failed to pull image "x": ${'a'.repeat(100_000)}` }]);
    expect(e?.message.length).toBe(2_000);
  });
});
