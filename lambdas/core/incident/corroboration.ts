import { CLASS_SCOPE } from '../contract/failure-classes.js';
import { asStuckPod, type NodeObject, type PodObject, type StuckReason } from '../detect/stuck-pods.js';
import type { Occurrence } from './incidents.js';
import type { Corroboration } from './provenance.js';

/**
 * Corroboration of tenant-rank signals (provenance.ts) by facts only the kubelet, the scheduler and the
 * API server write. A Kubernetes Event object is anyone's: its `source.host`, `reportingInstance`,
 * message and count are what its creator chose. What it may do is decided by the pod it names as read
 * from the API: the pod exists (the same object, when the event carries its uid), its status as the
 * kubelet wrote it shows it stuck the way the class says, it is bound to a node (`spec.nodeName`, with
 * `status.hostIP`: the kubelet of that node wrote the status), and the incident is keyed on that node.
 * Pure: the caller reads the pod and node.
 */

/** A Node whose conditions the kubelet writes. */
export interface NodeWithConditions extends NodeObject {
  readonly status?: NodeObject['status'] & {
    readonly conditions?: readonly { readonly type?: string; readonly status?: string; readonly reason?: string }[];
  };
}

/** A pod object with what corroboration reads (the rest of PodObject is not needed). */
export interface BoundPod extends PodObject {
  readonly status?: PodObject['status'] & { readonly hostIP?: string };
}

export type CorroborationResult =
  | { readonly corroborated: true; readonly by: Corroboration; readonly occurrence: Occurrence }
  | { readonly corroborated: false; readonly why: string };

/** The waiting reasons of a pod the class can explain: pull classes a failed pull, the others a sandbox not made. */
export function reasonsFor(cls: Occurrence['class']): readonly StuckReason[] {
  if (cls === 'disk-full') return ['ContainerCreating', 'ErrImagePull', 'ImagePullBackOff'];
  return CLASS_SCOPE[cls] === 'image' ? ['ErrImagePull', 'ImagePullBackOff'] : ['ContainerCreating'];
}

/**
 * A pod event's occurrence as the pod corroborates it: keyed on the pod's bound node (never on the
 * event's host), or why not. `eventPodUid` is the event's `involvedObject.uid` when it names one.
 */
export function corroborateWithPod(
  o: Occurrence,
  pod: BoundPod | undefined,
  eventPodUid: string | undefined,
): CorroborationResult {
  const name = `${o.entities.namespace ?? ''}/${o.entities.pod ?? ''}`;
  if (!pod) return { corroborated: false, why: `pod ${name} does not exist` };
  if (eventPodUid && pod.metadata?.uid && eventPodUid !== pod.metadata.uid)
    return { corroborated: false, why: `pod ${name} is not the object the event names (uid)` };
  const stuck = asStuckPod(pod);
  if (!stuck) return { corroborated: false, why: `pod ${name}'s status shows no container waiting to start` };
  const expected = reasonsFor(o.class);
  if (!expected.includes(stuck.reason))
    return {
      corroborated: false,
      why: `pod ${name} waits in ${stuck.reason}, which ${o.class} does not explain (${expected.join(', ')})`,
    };
  const node = pod.spec?.nodeName;
  if (!node || !pod.status?.hostIP)
    return { corroborated: false, why: `pod ${name} is not bound to a node whose kubelet wrote its status` };
  return {
    corroborated: true,
    by: 'pod-status',
    occurrence: {
      ...o,
      entities: { ...o.entities, node },
      factSources: { ...o.factSources, node: 'pod-binding' },
      corroboratedBy: 'pod-status',
    },
  };
}

/** The condition whose state shows each node-level class (absent: the node not Ready). */
const CONDITION_OF: Partial<Record<Occurrence['class'], string>> = {
  'disk-full': 'DiskPressure',
  'pid-exhaustion': 'PIDPressure',
};

/** A Node event's occurrence as the Node's conditions (the kubelet's) corroborate it, or why not. */
export function corroborateWithNode(o: Occurrence, node: NodeWithConditions | undefined): CorroborationResult {
  const name = o.entities.node ?? '';
  if (!node) return { corroborated: false, why: `node ${name} does not exist` };
  const conditions = node.status?.conditions ?? [];
  const type = CONDITION_OF[o.class];
  const shows = type
    ? conditions.some((c) => c.type === type && c.status === 'True')
    : conditions.some(
        (c) => (c.type === 'Ready' && c.status !== 'True') || (c.type === 'NetworkUnavailable' && c.status === 'True'),
      );
  if (!shows)
    return {
      corroborated: false,
      why: `node ${name}'s conditions do not show ${type ? `${type}` : 'it not Ready'} (${o.class})`,
    };
  return {
    corroborated: true,
    by: 'node-conditions',
    occurrence: { ...o, factSources: { ...o.factSources, node: 'node-object' }, corroboratedBy: 'node-conditions' },
  };
}
