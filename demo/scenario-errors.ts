/** The kubelet errors of the demo scenarios' stuck pods (the same texts as their log lines). */
import { ACCOUNT, APP_IMAGE, REGION } from '../local/account-snapshot.js';
import { ECR_PAUSE } from './scenario-kit.js';

export const AL2023_PAUSE_MISSING =
  'failed to get sandbox image "localhost/kubernetes/pause": failed to pull image "localhost/kubernetes/pause": failed to pull and unpack image "localhost/kubernetes/pause:latest": failed to resolve reference "localhost/kubernetes/pause:latest": failed to do request: Head "https://localhost/v2/kubernetes/pause/manifests/latest": dial tcp 127.0.0.1:443: connect: connection refused';
export const PAUSE_NO_CREDENTIALS = `failed to get sandbox image "${ECR_PAUSE}": failed to pull image "${ECR_PAUSE}": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials`;
export const SHIM_FORK =
  'failed to start sandbox container for pod "worker-5": failed to start shim: fork/exec /usr/bin/containerd-shim-runc-v2: resource temporarily unavailable: unknown';
export const TAG_TYPO = APP_IMAGE.replace('v2.3.1', 'v2.3.11');
export const REPO_TYPO = APP_IMAGE.replace('payments/api', 'payment/api');
export const CROSS_ACCOUNT = `444455556666.dkr.ecr.${REGION}.amazonaws.com/shared/base:2024`;
/** kubelet's pull error for a reference that does not resolve (the scenario's log line says the same). */
export const notFound = (image: string) =>
  `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`;
export const STUCK_WEB = ['default/web-7d9c8-x2k4q'];
export const STUCK_API = ['payments/api-6c8d9f7b5-x2k4q'];

/** kubelet's pull error when the ECR endpoint drops the connection (the scenario's log line says the same). */
export const ENDPOINT_TIMEOUT = `rpc error: code = Unknown desc = failed to pull and unpack image "${APP_IMAGE}": failed to resolve reference "${APP_IMAGE}": failed to do request: Head "https://${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/v2/payments/api/manifests/v2.3.1": dial tcp 10.0.3.17:443: i/o timeout`;
/** kubelet's pull error for the other account's repository that denies the node role. */
export const CROSS_ACCOUNT_DENIED = `rpc error: code = Unknown desc = failed to pull and unpack image "${CROSS_ACCOUNT}": failed to resolve reference "${CROSS_ACCOUNT}": unexpected status from HEAD request to https://444455556666.dkr.ecr.${REGION}.amazonaws.com/v2/shared/base/manifests/2024: 403 Forbidden`;
/** kubelet's pull error at Docker Hub's anonymous pull limit. */
export const DOCKER_HUB_429 =
  'rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/httpd:latest": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/httpd/manifests/latest: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit.';
