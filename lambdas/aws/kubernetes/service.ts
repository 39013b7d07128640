// zod/mini (tree-shaken to a fraction of classic zod's import cost) with English messages (zod-english).
import * as z from 'zod/mini';
import '../../core/text/zod-english.js';
import { CLASS_SCOPE, FAILURE_CLASSES } from '../../core/contract/failure-classes.js';
import { ClusterApi, type ClusterEndpoint, type TokenSource } from '../readers/kubernetes/cluster-api.js';
import { type Inspection, inspectCluster } from './inspect.js';
import { type ReplacementVerdict, type ReplacementWatch, verifyReplacements } from './replacements.js';
import { type PodVerdict, verifyPodsStarted } from './verify-pods.js';

const dnsName = z.string().check(z.regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/));
const text = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));
/** The resolved node as the workflow carries it (`$.node`): only its Kubernetes name is used. */
const node = z._default(z.looseObject({ privateDnsName: z.optional(dnsName) }), {});
const cluster = text(1, 100);
const inspectRequest = z.object({
  action: z.literal('inspect'),
  cluster,
  node,
  entities: z._default(z.looseObject({ image: z.optional(z.string().check(z.maxLength(1024))) }), {}),
  failureClass: z.enum(FAILURE_CLASSES),
});
/** Verification watches the resolved node only. */
const resolvedNode = z.looseObject({ privateDnsName: dnsName });
const verifyRequest = z.object({
  action: z.literal('verify'),
  cluster,
  node: resolvedNode,
  pods: z
    .array(z.object({ namespace: dnsName, name: dnsName, uid: z.optional(z.string().check(z.maxLength(64))) }))
    .check(z.maxLength(50)),
  /**
   * The pods (`namespace/name`) the incident named when it opened: only those of `pods` are watched.
   * @default every pod of `pods`
   */
  named: z.optional(z.array(text(1, 400)).check(z.maxLength(100))),
  windowSeconds: z.int().check(z.minimum(1), z.maximum(840)),
});
const uid = text(1, 64);
/** The pods evict-stuck-pods evicted, as it reported them (uids from the API objects). */
const replacementsRequest = z.object({
  action: z.literal('verify-replacements'),
  cluster,
  evicted: z
    .array(
      z.object({
        namespace: dnsName,
        name: dnsName,
        uid,
        owner: z.object({ kind: text(1, 64), name: dnsName, uid }),
      }),
    )
    .check(z.minLength(1), z.maxLength(50)),
  since: z.iso.datetime(),
  windowSeconds: z.int().check(z.minimum(1), z.maximum(840)),
});
/**
 * What the workflow sends the Kubernetes function: reads only (inspect the cluster, watch the pods
 * start, watch the re-created pods). Every Kubernetes write is the door's (lambdas/aws/door).
 */
export const kubernetesRequestSchema = z.discriminatedUnion('action', [
  inspectRequest,
  verifyRequest,
  replacementsRequest,
]);
export type KubernetesRequest = z.output<typeof kubernetesRequestSchema>;

export type KubernetesResult =
  | ({ readonly action: 'inspect' } & Inspection)
  | { readonly action: 'verify'; readonly verdict: PodVerdict | null }
  | { readonly action: 'verify-replacements'; readonly verdict: ReplacementVerdict };

export interface KubernetesDeps {
  readonly endpoint: (cluster: string) => Promise<ClusterEndpoint>;
  readonly tokens: TokenSource;
  readonly clock?: () => Date;
  /** How verify-replacements reads the re-created pods. @default every 2 s, the real clock */
  readonly replacementWatch?: Pick<ReplacementWatch, 'pollMs' | 'clock' | 'sleep'>;
}

/** One request against one cluster's API: inspect (findings), verify (pods started) or verify-replacements. */
export async function handleKubernetesRequest(
  request: KubernetesRequest,
  deps: KubernetesDeps,
): Promise<KubernetesResult> {
  const api = new ClusterApi(await deps.endpoint(request.cluster), deps.tokens);
  if (request.action === 'verify-replacements') {
    const { evicted, since, windowSeconds } = request;
    const verdict = await verifyReplacements(api, evicted, { since, windowSeconds, ...deps.replacementWatch });
    return { action: 'verify-replacements', verdict };
  }
  if (request.action === 'inspect') {
    const { privateDnsName } = request.node;
    const inspection = await inspectCluster(api, {
      failureClass: request.failureClass,
      ...(privateDnsName ? { nodeName: privateDnsName } : {}),
      // Pull incidents are about an image; node incidents (the pause image included) about the node.
      ...(request.entities.image && CLASS_SCOPE[request.failureClass] === 'image'
        ? { image: request.entities.image }
        : {}),
    });
    return { action: 'inspect', ...inspection };
  }
  const named = request.named && new Set(request.named);
  const pods = named ? request.pods.filter((p) => named.has(`${p.namespace}/${p.name}`)) : request.pods;
  // No pod the incident named is stuck: nothing to watch, the node's own probe alone verifies.
  if (pods.length === 0) return { action: 'verify', verdict: null };
  const verdict = await verifyPodsStarted(api, request.node.privateDnsName, pods, {
    windowSeconds: request.windowSeconds,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  return { action: 'verify', verdict };
}
