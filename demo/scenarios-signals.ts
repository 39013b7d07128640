import { pauseEventsCluster } from './cluster-seeds.js';
import { ECR_PAUSE, type Scenario } from './scenario-kit.js';

/**
 * Scenarios of clusters whose failures reach pod-doctor through signals other than node logs
 * (issue 29): the Container Insights dataplane group does not exist (AL2023 nodes and the add-on's
 * OpenTelemetry mode ship no kubelet lines), so kubelet's Warning events are the fast signal.
 */
export const SIGNAL_SCENARIOS: readonly Scenario[] = [
  {
    name: 'pause-image-events-only',
    title:
      'No dataplane log group (Kubernetes events and CloudTrail only): image GC removed the ECR pause image; the events reader sees kubelet’s FailedCreatePodSandBox events, the node is repaired and its pods start',
    lines: [],
    repeat: 0,
    cluster: pauseEventsCluster(ECR_PAUSE),
    eventsWatched: true,
    node: { kind: 'local', variant: 'al2' },
    expect: {
      class: 'sandbox-image',
      failing: ['node.sandbox-image.present', 'node.sandbox-image.pinned'],
      outcome: 'repaired and verified',
      nodeAction: 'repair-pause-image',
      signals: ['kubernetes-events'],
    },
  },
];
