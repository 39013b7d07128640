import type { V1Deployment, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { Configuration, ConfigurationOptions } from '@kubernetes/client-node/dist/gen/configuration.js';
import { HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { samePullInputs } from '../../core/remedy/rollout.js';
import type { RolloutRollbackPort } from '../../core/remedy/rollout-rollback.js';
import { PatchStrategy, setHeaderOptions } from '../readers/kubernetes/client.js';
import { type ClusterApi, selectorValue } from '../readers/kubernetes/cluster-api.js';
import { type Operation, PRETTY, send } from '../readers/kubernetes/generated-api.js';
import { deployment, pullInputsOf, rolloutFacts } from '../readers/kubernetes/rollout-reader.js';
import type { WaitOptions } from './kubernetes-actions.js';

/**
 * The cluster side of rollback-deployment: the Deployment's facts (the reads of
 * ../kubernetes/rollout-reader.ts) and the one write, `kubectl rollout undo`'s: the pod template of
 * the ReplicaSet of the revision to go back to (its `pod-template-hash` label removed) put on the
 * Deployment with a JSON patch carrying the resourceVersion read (409 when someone changed it since).
 * The deployment controller then finds that ReplicaSet by its template, gives it the next revision
 * and scales it up. Only the door holds this write (test/unit/door-isolation.test.ts); the RBAC
 * manifest grants `patch deployments` to the door's group only.
 */

/** AppsV1Api.patchNamespacedDeployment (gen/apis/AppsV1Api.js: its query parameters and media types). */
export const PATCH_DEPLOYMENT: Operation = {
  api: 'AppsV1Api',
  name: 'patchNamespacedDeployment',
  method: HttpMethod.PATCH,
  path: '/apis/apps/v1/namespaces/{namespace}/deployments/{name}',
  required: ['name', 'namespace', 'body'],
  query: [
    PRETTY,
    ['dryRun', 'string'],
    ['fieldManager', 'string'],
    ['fieldValidation', 'string'],
    ['force', 'boolean'],
  ],
  body: {
    type: 'any',
    mediaTypes: [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
      'application/apply-patch+cbor',
    ],
  },
  returns: 'V1Deployment',
};

export class AppsV1WriteApi {
  constructor(private readonly configuration: Configuration) {}

  patchNamespacedDeployment(
    p: { readonly name: string; readonly namespace: string; readonly body: unknown },
    options?: ConfigurationOptions,
  ) {
    return send<V1Deployment>(PATCH_DEPLOYMENT, p, this.configuration, options);
  }
}

/** The template of a ReplicaSet as the Deployment's (wire JSON, without the controller's pod-template-hash label). */
export function deploymentTemplateOf(t: V1PodTemplateSpec | undefined): unknown {
  const wire = ObjectSerializer.serialize(structuredClone(t ?? {}), 'V1PodTemplateSpec', '') as {
    metadata?: { labels?: Record<string, string> };
  };
  if (wire.metadata?.labels) delete wire.metadata.labels['pod-template-hash'];
  return wire;
}

export class RolloutTemplateMissingError extends Error {
  override readonly name = 'RolloutTemplateMissingError';
}

export function rolloutPort(
  api: ClusterApi,
  t: { readonly namespace: string; readonly deployment: string },
  wait: WaitOptions = {},
): RolloutRollbackPort {
  const clock = wait.clock ?? Date.now;
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const read = () => rolloutFacts(api, t.namespace, t.deployment);
  return {
    read: async () => (await read())?.facts,
    async applyTemplateOf(replicaSet, resourceVersion) {
      const now = await read();
      const rs = now?.sets.find((s) => s.metadata?.name === replicaSet);
      if (!rs?.spec?.template)
        throw new RolloutTemplateMissingError(`ReplicaSet ${t.namespace}/${replicaSet} has no pod template`);
      const target = pullInputsOf(rs.spec.template);
      const body = [
        ...(resourceVersion ? [{ op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }] : []),
        { op: 'replace', path: '/spec/template', value: deploymentTemplateOf(rs.spec.template) },
      ];
      // Guarded by the resourceVersion, the patch is not idempotent: after a 5xx it is sent again
      // only when the Deployment does not pull like the target yet.
      const tookEffect = async () => {
        const d = await deployment(api, t.namespace, t.deployment);
        return d && samePullInputs(pullInputsOf(d.spec?.template), target) ? d : undefined;
      };
      const start = clock();
      await api.call(
        `patch deployment ${t.namespace}/${t.deployment}`,
        (kc) =>
          kc.makeApiClient(AppsV1WriteApi).patchNamespacedDeployment(
            {
              namespace: selectorValue(t.namespace, 'namespace'),
              name: selectorValue(t.deployment, 'deployment name'),
              body,
            },
            setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
          ),
        resourceVersion ? tookEffect : undefined,
      );
      for (;;) {
        const after = (await read())?.facts;
        const newest = after?.replicaSets
          .filter((r) => r.revision !== undefined)
          .sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0))[0];
        const started =
          newest?.name === replicaSet &&
          newest.readyReplicas >= (after?.deployment.replicas ?? 1) &&
          !after?.stuck.some((p) => p.replicaSet === replicaSet);
        if (started) return { readyAfterSeconds: (clock() - start) / 1000 };
        if (clock() - start >= (wait.timeoutMs ?? 120_000)) return {};
        await sleep(wait.pollMs ?? 2_000);
      }
    },
  };
}
