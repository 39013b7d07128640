import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { EKSClient } from '@aws-sdk/client-eks';
import {
  handleKubernetesRequest,
  type KubernetesDeps,
  type KubernetesResult,
  kubernetesRequestSchema,
} from '../aws/kubernetes/service.js';
import { endpointCache } from '../aws/readers/kubernetes/endpoint.js';
import { EksTokenCache } from '../aws/readers/kubernetes/token.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { logger, metrics, withPowertools } from '../aws/runtime/powertools.js';
import { CLUSTER_READ_FAILED } from '../core/contract/metric-names.js';

/** One failed read of `cluster`'s API (the stack's alarm on ClusterReadFailed tells which cluster keeps failing). */
function readFailed(cluster: string): void {
  const m = metrics.singleMetric();
  m.addDimension('cluster', cluster);
  m.addMetric(CLUSTER_READ_FAILED, MetricUnit.Count, 1);
}

/** Kubernetes API of a configured cluster through pod-doctor's read-only access entry: inspect or verify. */
export const createHandler = (deps: KubernetesDeps) =>
  withPowertools(kubernetesRequestSchema, async (request): Promise<KubernetesResult> => {
    const result = await handleKubernetesRequest(request, deps).catch((e: unknown) => {
      // Counted (its own EMF document, published at once), then thrown by name.
      readFailed(request.cluster);
      throw e;
    });
    // An inspection reports a read it could not make as an `error` finding: counted the same.
    if (result.action === 'inspect' && result.findings.some((f) => f.status === 'error')) readFailed(request.cluster);
    logger.info('kubernetes request done', { action: request.action, cluster: request.cluster });
    return result;
  });

const env = readEnvironment('kubernetes');
const eks = new EKSClient({ maxAttempts: 6 });

export const handler = createHandler({
  endpoint: endpointCache(eks, env.AWS_REGION),
  // The function role's credentials, as the SDK client resolved them (they sign the EKS token).
  tokens: new EksTokenCache(() => eks.config.credentials()),
});
