import { z } from 'zod';
import { FAILURE_CLASSES } from '../../core/failure-classes.js';
import type { Finding } from '../../core/findings.js';
import { ClusterApi, type ClusterEndpoint, type TokenSource } from './cluster-api.js';
import { inspectCluster } from './inspect.js';
import { type PodVerdict, verifyPodsStarted } from './verify-pods.js';

const dnsName = z.string().regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/);
const inspectRequest = z.object({
  action: z.literal('inspect'),
  cluster: z.string().min(1).max(100),
  nodeName: dnsName.optional(),
  image: z.string().max(1024).optional(),
  failureClass: z.enum(FAILURE_CLASSES),
});
const verifyRequest = z.object({
  action: z.literal('verify'),
  cluster: z.string().min(1).max(100),
  nodeName: dnsName,
  pods: z.array(z.object({ namespace: dnsName, name: dnsName, uid: z.string().max(64).optional() })).max(50),
  windowSeconds: z.int().min(1).max(840),
});
/** What the workflow sends the Kubernetes function. */
export const kubernetesRequestSchema = z.discriminatedUnion('action', [inspectRequest, verifyRequest]);
export type KubernetesRequest = z.output<typeof kubernetesRequestSchema>;

export type KubernetesResult =
  | { readonly action: 'inspect'; readonly findings: Finding[] }
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
    return { action: 'inspect', findings: await inspectCluster(api, request) };
  }
  const verdict = await verifyPodsStarted(api, request.nodeName, request.pods, {
    windowSeconds: request.windowSeconds,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  return { action: 'verify', verdict };
}
