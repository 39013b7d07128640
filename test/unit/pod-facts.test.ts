import { describe, expect, it } from 'vitest';
import { occurrenceOf, podFacts } from '../../lambdas/aws/kubernetes/sweep.js';
import { sandboxRepositories } from '../../lambdas/core/contract/trust.js';
import { refineWithPodFacts } from '../../lambdas/core/detect/pod-facts.js';
import { classifyPodEvents, type StuckPod } from '../../lambdas/core/detect/stuck-pods.js';

// The bare registry refusal of a tune line (https://github.com/convox/rack/issues/1302): alone it names no image.
const BARE_AUTH = 'unauthorized: authentication required';
const sandboxImages = sandboxRepositories('us-east-1');
const PAUSE = '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5';
const APP = '111122223333.dkr.ecr.us-east-1.amazonaws.com/app:v2';
const TIMEOUT =
  'Failed to pull image "nginx:stable": rpc error: code = Unknown desc = Error response from daemon: Get "https://registry-1.docker.io/v2/": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)';

describe('classification with the pod’s facts', () => {
  it('reads a bare refusal in a sandbox start as the node’s sandbox image, in a pull of the pod’s image as registry-auth', () => {
    const sandbox = {
      reason: 'FailedCreatePodSandBox',
      message: `Failed to create pod sandbox: rpc error: code = Unknown desc = ${BARE_AUTH}`,
    };
    expect(refineWithPodFacts(sandbox, { sandboxImages })).toMatchObject({ class: 'sandbox-image', by: 'reason' });
    const pull = { reason: 'Failed', message: BARE_AUTH };
    expect(refineWithPodFacts(pull, { images: [APP], sandboxImages })).toMatchObject({
      class: 'registry-auth',
      by: 'reason',
    });
    // The pod's image is the node's pause image: the same words are the node's sandbox-image failure.
    expect(refineWithPodFacts(pull, { images: [PAUSE], sandboxImages })).toMatchObject({ class: 'sandbox-image' });
  });

  it('reads nothing into a message without the facts that frame it', () => {
    expect(refineWithPodFacts({ reason: 'Failed', message: BARE_AUTH })).toMatchObject({
      class: 'unknown',
      by: 'message',
    });
    // Two waiting images: which one failed is unknown.
    expect(refineWithPodFacts({ reason: 'Failed', message: BARE_AUTH }, { images: [APP, 'nginx:1'] }).class).toBe(
      'unknown',
    );
    // A sandbox start that timed out is no pull: the frame adds no cause, the message's own reading stands.
    const timeout = {
      reason: 'FailedCreatePodSandBox',
      message: 'Failed to create pod sandbox: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
    };
    expect(refineWithPodFacts(timeout, { sandboxImages })).toMatchObject({ class: 'runtime-failure', by: 'message' });
  });

  it('leaves an image named like a pause image to the trust check: the facts never vouch for it', () => {
    const message = `Failed to pull image "x.io/eks/pause:3.5": rpc error: code = Unknown desc = ${BARE_AUTH}`;
    const pod: StuckPod = {
      namespace: 'default',
      name: 'web-1',
      nodeName: 'ip-10-0-1-2.ec2.internal',
      statusFromNode: true,
      reason: 'ErrImagePull',
      images: ['x.io/eks/pause:3.5'],
    };
    const facts = podFacts(pod, { region: 'us-east-1' });
    // The catalogue reads the words; the facts add nothing (the image is not the node's sandbox image) ...
    expect(refineWithPodFacts({ reason: 'Failed', message }, facts).by).toBe('message');
    // ... and the sweep's trust check turns it into a workload pull failure, as the log path does.
    const events = classifyPodEvents([{ reason: 'Failed', message }], facts);
    expect(occurrenceOf('prod', pod, events, 0, [], facts)?.class).toBe('image-pull-failed');
  });

  it('gives a cause-less event the cause the pod’s other events name', () => {
    const history = [{ reason: 'Failed', message: TIMEOUT }];
    expect(refineWithPodFacts({ reason: 'Failed', message: 'Error: ErrImagePull' }, { history })).toMatchObject({
      class: 'registry-unreachable',
      by: 'history',
    });
    expect(
      refineWithPodFacts({ reason: 'BackOff', message: 'Back-off pulling image "nginx:stable"' }, {}),
    ).toMatchObject({
      class: 'image-pull-failed',
    });
    // An event that reports no failure stays healthy whatever the pod's other events say.
    for (const healthy of [
      { reason: 'Scheduled', message: 'Successfully assigned default/web-0 to ip-10-0-1-2.ec2.internal' },
      { reason: 'Pulling', message: 'Pulling image "nginx:stable"' },
    ])
      expect(refineWithPodFacts(healthy, { images: ['nginx:stable'], history })).toMatchObject({
        class: 'unknown',
        by: 'message',
      });
    // An event that names its own cause keeps it whatever the history says.
    expect(
      refineWithPodFacts(
        { reason: 'Failed', message: TIMEOUT },
        { history: [{ reason: 'Failed', message: `x: ${BARE_AUTH}` }] },
      ).by,
    ).toBe('message');
  });

  it('lets the sweep open a sandbox-image incident from a bare refusal, the node’s sandbox image being configured, not read', () => {
    const pod: StuckPod = {
      namespace: 'default',
      name: 'web-0',
      nodeName: 'ip-10-0-1-2.ec2.internal',
      statusFromNode: true,
      reason: 'ContainerCreating',
      images: [APP],
    };
    const facts = podFacts(pod, { region: 'us-east-1' });
    expect(facts.sandboxImages).toContain('602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause');
    const events = classifyPodEvents(
      [
        {
          reason: 'FailedCreatePodSandBox',
          message: `Failed to create pod sandbox: rpc error: code = Unknown desc = ${BARE_AUTH}`,
        },
      ],
      facts,
    );
    expect(occurrenceOf('prod', pod, events, 0, [], facts)).toMatchObject({
      class: 'sandbox-image',
      entities: { node: pod.nodeName },
    });
    // Without the pod's facts the same event opens no sandbox-image incident.
    const alone = classifyPodEvents([
      {
        reason: 'FailedCreatePodSandBox',
        message: `Failed to create pod sandbox: rpc error: code = Unknown desc = ${BARE_AUTH}`,
      },
    ]);
    expect(occurrenceOf('prod', pod, alone, 0)?.class).not.toBe('sandbox-image');
    // A pod bound by whoever created it (spec.nodeName) but whose status no kubelet wrote opens nothing.
    const { statusFromNode: _, ...unbacked } = pod;
    expect(occurrenceOf('prod', unbacked, events, 0, [], facts)).toBeUndefined();
    // Nor one whose waiting reason the class does not explain (a sandbox failure of a pod waiting on a pull).
    expect(occurrenceOf('prod', { ...pod, reason: 'ImagePullBackOff' }, events, 0, [], facts)).toBeUndefined();
  });
});
