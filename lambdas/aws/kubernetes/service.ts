// zod/mini (tree-shaken to a fraction of classic zod's import cost) with English messages (zod-english).
import * as z from 'zod/mini';
import '../../core/zod-english.js';
import { CLASS_SCOPE, FAILURE_CLASSES } from '../../core/failure-classes.js';
import { type ApplyPath, type ApplyRecord, runApplyPath } from '../../core/remedy/apply-path.js';
import { awsNodeRestartPath, windowsIpamPath } from '../../core/remedy/kubernetes-paths.js';
import { type CordonRecord, cordonNode, uncordonNode, type WaitOptions } from './actions.js';
import { ClusterApi, type ClusterEndpoint, type TokenSource } from './cluster-api.js';
import { type DrainReport, drainNode, evictStuckPods, type StuckPodEvictions } from './evictions.js';
import { type Inspection, inspectCluster } from './inspect.js';
import { awsNodeRestartPort, windowsIpamPort } from './remedy-ports.js';
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
/** Node actions act on the resolved node only. */
const resolvedNode = z.looseObject({ privateDnsName: dnsName });
const verifyRequest = z.object({
  action: z.literal('verify'),
  cluster,
  node: resolvedNode,
  pods: z
    .array(z.object({ namespace: dnsName, name: dnsName, uid: z.optional(z.string().check(z.maxLength(64))) }))
    .check(z.maxLength(50)),
  windowSeconds: z.int().check(z.minimum(1), z.maximum(840)),
});
const remedyRequest = z.object({
  action: z.literal('remedy'),
  /** prepare: re-check and dry-run diff; apply: change, verify, roll back. */
  phase: z.enum(['prepare', 'apply']),
  cluster,
  /** The plan's target (Decide): restart-aws-node names the node Decide saw resolved from EC2. */
  remedy: z.discriminatedUnion('kind', [
    z.looseObject({ kind: z.literal('restart-aws-node'), nodeName: dnsName }),
    z.looseObject({ kind: z.literal('enable-windows-ipam') }),
  ]),
  node,
});
const cordonRecord = z.object({ node: dnsName, before: z.boolean(), after: z.boolean(), changed: z.boolean() });
const nodeAction = <A extends 'cordon' | 'uncordon' | 'drain-node'>(action: A) =>
  z.object({ action: z.literal(action), cluster, node: resolvedNode, cordoned: z.optional(cordonRecord) });
const cordonRequest = nodeAction('cordon');
const uncordonRequest = nodeAction('uncordon');
/** skipIfCordoned: a node someone else cordoned is left to them (node auto repair, an operator). */
const drainRequest = z.extend(nodeAction('drain-node'), { skipIfCordoned: z.optional(z.boolean()) });
const evictRequest = z.object({
  action: z.literal('evict-stuck-pods'),
  cluster,
  node: resolvedNode,
  /** The stuck pods the inspection named (API objects, not text): only these are evicted. */
  pods: z.optional(z.array(z.looseObject({ namespace: dnsName, name: dnsName })).check(z.maxLength(50))),
  /** The API server's dry run (`dryRun=All`): budgets checked, nothing evicted. */
  dryRun: z.optional(z.boolean()),
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
/** What the workflow sends the Kubernetes function. */
export const kubernetesRequestSchema = z.discriminatedUnion('action', [
  inspectRequest,
  verifyRequest,
  remedyRequest,
  cordonRequest,
  uncordonRequest,
  drainRequest,
  evictRequest,
  replacementsRequest,
]);
export type KubernetesRequest = z.output<typeof kubernetesRequestSchema>;

export type KubernetesResult =
  | ({ readonly action: 'inspect' } & Inspection)
  | { readonly action: 'verify'; readonly verdict: PodVerdict }
  | { readonly action: 'remedy'; readonly record: ApplyRecord }
  | { readonly action: 'cordon' | 'uncordon'; readonly cordon: CordonRecord }
  | { readonly action: 'drain-node'; readonly drain: DrainReport }
  | { readonly action: 'evict-stuck-pods'; readonly evictions: StuckPodEvictions }
  | { readonly action: 'verify-replacements'; readonly verdict: ReplacementVerdict };

export interface KubernetesDeps {
  readonly endpoint: (cluster: string) => Promise<ClusterEndpoint>;
  readonly tokens: TokenSource;
  readonly clock?: () => Date;
  /** How restart-aws-node waits for the replacement. @default 120 s, read every 2 s */
  readonly wait?: WaitOptions;
  /** How verify-replacements reads the re-created pods. @default every 2 s, the real clock */
  readonly replacementWatch?: Pick<ReplacementWatch, 'pollMs' | 'clock' | 'sleep'>;
}

/**
 * The plan's target names another node than the one the workflow resolved from EC2 (`$.node`), or
 * no node is resolved: both names are trusted, so a disagreement means the state was changed
 * between Decide and this step, and acting on either would be a guess. Nothing is done.
 */
export class NodeIdentityMismatchError extends Error {
  override readonly name = 'NodeIdentityMismatchError';
}

/** The apply path of a cluster remedy; restart-aws-node runs only when plan and resolved node agree. */
function remedyPath(
  request: z.output<typeof remedyRequest>,
  api: ClusterApi,
  deps: KubernetesDeps,
): ApplyPath<unknown> {
  if (request.remedy.kind === 'enable-windows-ipam') return windowsIpamPath(windowsIpamPort(api)) as ApplyPath<unknown>;
  const planned = request.remedy.nodeName;
  const resolved = request.node.privateDnsName;
  if (planned !== resolved)
    throw new NodeIdentityMismatchError(
      `the plan's target node ${planned} is not the node resolved from EC2 (${resolved ?? 'none resolved'}): nothing done`,
    );
  return awsNodeRestartPath(
    { kind: 'restart-aws-node', nodeName: resolved },
    awsNodeRestartPort(api, deps.wait),
  ) as ApplyPath<unknown>;
}

async function act(
  request: Exclude<KubernetesRequest, { action: 'inspect' | 'verify' | 'verify-replacements' }>,
  api: ClusterApi,
  deps: KubernetesDeps,
): Promise<KubernetesResult> {
  const now = () => (deps.clock ?? (() => new Date()))().getTime();
  switch (request.action) {
    case 'remedy': {
      const path = remedyPath(request, api, deps);
      return { action: 'remedy', record: await runApplyPath(path, { dryRun: request.phase === 'prepare', now }) };
    }
    case 'cordon':
      return { action: 'cordon', cordon: await cordonNode(api, request.node.privateDnsName) };
    case 'uncordon':
      return { action: 'uncordon', cordon: await uncordonNode(api, request.node.privateDnsName, request.cordoned) };
    case 'drain-node':
      return {
        action: 'drain-node',
        drain: await drainNode(api, request.node.privateDnsName, {
          ...deps.wait,
          ...(request.skipIfCordoned ? { skipIfCordoned: true } : {}),
        }),
      };
    case 'evict-stuck-pods':
      return {
        action: 'evict-stuck-pods',
        evictions: await evictStuckPods(api, request.node.privateDnsName, request.pods, {
          ...(request.dryRun ? { dryRun: true } : {}),
          ...(deps.clock ? { clock: deps.clock } : {}),
        }),
      };
  }
}

/** One request against one cluster's API: inspect (findings), verify (pods started), verify-replacements, or an action. */
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
  if (request.action !== 'inspect' && request.action !== 'verify') return act(request, api, deps);
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
