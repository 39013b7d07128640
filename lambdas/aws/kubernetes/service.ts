import { z } from 'zod';
import { CLASS_SCOPE, FAILURE_CLASSES } from '../../core/failure-classes.js';
import { ClusterApi, type ClusterEndpoint, type TokenSource } from './cluster-api.js';
import { type Inspection, inspectCluster } from './inspect.js';
import { type PodVerdict, verifyPodsStarted } from './verify-pods.js';

const dnsName = z.string().regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/);
/** The resolved node as the workflow carries it (`$.node`): only its Kubernetes name is used. */
const node = z.object({ privateDnsName: dnsName.optional() }).loose().default({});
const inspectRequest = z.object({
  action: z.literal('inspect'),
  cluster: z.string().min(1).max(100),
  node,
  entities: z
    .object({ image: z.string().max(1024).optional() })
    .loose()
    .default({}),
  failureClass: z.enum(FAILURE_CLASSES),
});
const verifyRequest = z.object({
  action: z.literal('verify'),
  cluster: z.string().min(1).max(100),
  node: z.object({ privateDnsName: dnsName }).loose(),
  pods: z.array(z.object({ namespace: dnsName, name: dnsName, uid: z.string().max(64).optional() })).max(50),
  windowSeconds: z.int().min(1).max(840),
});
/** What the workflow sends the Kubernetes function. */
export const kubernetesRequestSchema = z.discriminatedUnion('action', [inspectRequest, verifyRequest]);
export type KubernetesRequest = z.output<typeof kubernetesRequestSchema>;

export type KubernetesResult =
  | ({ readonly action: 'inspect' } & Inspection)
  | { readonly action: 'verify'; readonly verdict: PodVerdict };

export interface KubernetesDeps {
  readonly endpoint: (cluster: string) => Promise<ClusterEndpoint>;
  readonly tokens: TokenSource;
  readonly clock?: () => Date;
}

/** One request against one cluster's API: inspect (findings) or verify (pods started). */
export async function handleKubernetesRequest(
  request: KubernetesRequest,
  deps: KubernetesDeps,
): Promise<KubernetesResult> {
  const api = new ClusterApi(await deps.endpoint(request.cluster), deps.tokens);
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
  const verdict = await verifyPodsStarted(api, request.node.privateDnsName, request.pods, {
    windowSeconds: request.windowSeconds,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  return { action: 'verify', verdict };
}
