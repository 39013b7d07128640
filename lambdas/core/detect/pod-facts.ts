import { type FailureClass, PULL_CAUSE_CLASSES } from '../contract/failure-classes.js';
import { repositoryOf } from '../contract/trust.js';
import { classifyMessage } from './classifier.js';
import { extractEntities } from './entities.js';

/**
 * Classification with the pod's own facts, for a Kubernetes event or a pod's waiting message: what a single message
 * cannot say, the API can. A bare `unauthorized: authentication required` in a `FailedCreatePodSandBox` event is the
 * node failing to pull its sandbox image (the only image a sandbox start pulls); the same words in a pull `Failed`
 * event of the pod's own image are a registry-auth failure; an `Error: ErrImagePull` or `Back-off pulling image`
 * event names no cause, and the pod's earlier events do. Pure: the caller reads the pod, its events and the node's
 * sandbox image; the Kubernetes events reader and the sweep both call {@link refineWithPodFacts}.
 *
 * Trust: every fact here except `sandboxImages` is tenant-controlled text (messages, pod images): it chooses a class,
 * never a target. `sandboxImages` comes from pod-doctor's configuration (the Region's EKS pause repository,
 * `localhost/kubernetes/pause`, configured repositories), never from the pod.
 */

/** What the API says about the pod an event is about. */
export interface PodFacts {
  /** Images of the pod's containers that wait (container status `image`, else the spec). */
  readonly images?: readonly string[];
  /**
   * Repositories of the sandbox (pause) images the node is configured with and pod-doctor trusts (see trust.ts).
   * @default [] (no image is taken for the sandbox image)
   */
  readonly sandboxImages?: readonly string[];
  /** The pod's other events (reason and message), any order. */
  readonly history?: readonly PodEvent[];
}

export interface PodEvent {
  readonly reason?: string;
  readonly message?: string;
}

/** How the facts decided the class. */
export type RefinedBy = 'message' | 'reason' | 'image' | 'history';

export interface Refined {
  readonly class: FailureClass;
  readonly cause: string | null;
  readonly signature: string | null;
  readonly by: RefinedBy;
}

const CAUSELESS: ReadonlySet<FailureClass> = new Set(['unknown', 'image-pull-failed']);
/** The catch-all sandbox signature: a sandbox start failed, the message names nothing more specific. */
const SANDBOX_CATCH_ALL = 'runtime.sandbox-failed';
/** Event reasons of a container image pull (kubelet's `Failed` carries ErrImagePull; BackOff the back-off). */
const PULL_REASONS = new Set(['Failed', 'ErrImagePull', 'BackOff']);
/** Reasons of an event that reports a pod start failing: only such an event may take its cause from the history. */
const FAILURE_REASONS = new Set([...PULL_REASONS, 'ImagePullBackOff', 'FailedCreatePodSandBox']);
/** At most this much of a message is read (as the sweep caps waiting messages). */
const MAX_MESSAGE = 2_000;

/** Classifies one event or waiting message of a pod with the pod's facts. */
export function refineWithPodFacts(event: PodEvent, facts: PodFacts = {}): Refined {
  const message = (event.message ?? '').slice(0, MAX_MESSAGE);
  const own = classifyMessage(message);
  let refined: Refined = { ...own, by: 'message' };
  if (CAUSELESS.has(own.class) || own.signature === SANDBOX_CATCH_ALL)
    refined = withReason(event.reason, message, facts) ?? refined;
  refined = onSandboxImage(refined, event.reason, message, facts);
  if (CAUSELESS.has(refined.class) && reportsFailure(event.reason, refined.class))
    refined = fromHistory(facts.history ?? [], facts, refined);
  return refined;
}

/**
 * Whether an event that names no cause reports a failure at all: a failed pull without its cause, or an event of a
 * failure reason. `Scheduled` or `Pulling` beside a failed pull stays what it is, whatever the pod's history says.
 */
function reportsFailure(reason: string | undefined, cls: FailureClass): boolean {
  return cls === 'image-pull-failed' || (reason !== undefined && FAILURE_REASONS.has(reason));
}

/**
 * A message that names no cause read as the pull its reason says it is: a sandbox start pulls the node's sandbox
 * image, a pull event the pod's image (only when the pod waits on one image: with several, which one is unknown).
 * The frame is kubelet's own pull wording; it adds no cause, so only a cause in the message makes the reading
 * specific (a framed message with none reads `image-pull-failed` and is dropped).
 */
function withReason(reason: string | undefined, message: string, facts: PodFacts): Refined | undefined {
  if (message.trim() === '') return undefined;
  let image: string | undefined;
  if (reason === 'FailedCreatePodSandBox') image = facts.sandboxImages?.[0];
  else if (reason !== undefined && PULL_REASONS.has(reason)) image = onlyImage(facts);
  if (image === undefined) return undefined;
  const c = classifyMessage(`Failed to pull image "${image}": ${message}`);
  return CAUSELESS.has(c.class) ? undefined : { ...c, by: 'reason' };
}

/** A pull failure of the node's sandbox image is the node's sandbox-image failure, whatever went wrong in the pull. */
function onSandboxImage(r: Refined, reason: string | undefined, message: string, facts: PodFacts): Refined {
  // A pull cause on the sandbox image is the node's sandbox-image failure.
  if (!PULL_CAUSE_CLASSES.has(r.class) || !facts.sandboxImages?.length) return r;
  const named = extractEntities(message);
  const image =
    named.sandboxImage ?? named.image ?? (reason === 'FailedCreatePodSandBox' ? undefined : onlyImage(facts));
  const sandbox = new Set(facts.sandboxImages.map(repositoryOf));
  const isSandbox =
    image !== undefined ? sandbox.has(repositoryOf(image)) : reason === 'FailedCreatePodSandBox' && r.by === 'reason';
  if (!isSandbox) return r;
  return {
    class: 'sandbox-image',
    cause: `the node cannot pull its sandbox image${r.cause ? `: ${r.cause}` : ''}`,
    signature: r.signature,
    by: 'image',
  };
}

function onlyImage(facts: PodFacts): string | undefined {
  return facts.images?.length === 1 ? facts.images[0] : undefined;
}

/** The pod's other events: the class most of them name, when the event itself names none. */
function fromHistory(history: readonly PodEvent[], facts: PodFacts, fallback: Refined): Refined {
  const counts = new Map<FailureClass, { n: number; r: Refined }>();
  for (const e of history) {
    const r = refineWithPodFacts(e, { ...facts, history: [] });
    if (CAUSELESS.has(r.class)) continue;
    const seen = counts.get(r.class);
    counts.set(r.class, { n: (seen?.n ?? 0) + 1, r: seen?.r ?? r });
  }
  const best = [...counts.values()].sort((a, b) => b.n - a.n)[0];
  return best ? { ...best.r, by: 'history' } : fallback;
}
