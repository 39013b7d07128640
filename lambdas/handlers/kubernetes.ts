import { Logger } from '@aws-lambda-powertools/logger';
import { EKSClient } from '@aws-sdk/client-eks';
import { endpointCache } from '../aws/kubernetes/endpoint.js';
import { handleKubernetesRequest, type KubernetesResult, kubernetesRequestSchema } from '../aws/kubernetes/service.js';
import { EksTokenCache } from '../aws/kubernetes/token.js';

const logger = new Logger();
const region = process.env.AWS_REGION ?? 'us-east-1';
const eks = new EKSClient({ maxAttempts: 6 });
const deps = {
  endpoint: endpointCache(eks, region),
  // The function role's credentials, as the SDK client resolved them (they sign the EKS token).
  tokens: new EksTokenCache(() => eks.config.credentials()),
};

/** Kubernetes API of a configured cluster through pod-doctor's access entry: inspect or verify. */
export const handler = async (event: unknown): Promise<KubernetesResult> => {
  const request = kubernetesRequestSchema.parse(event);
  const result = await handleKubernetesRequest(request, deps);
  logger.info('kubernetes request done', { action: request.action, cluster: request.cluster });
  return result;
};
