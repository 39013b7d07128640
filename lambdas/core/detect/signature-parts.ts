/**
 * The parts the signature catalogue (signatures.ts) is built from: context and cause patterns shared
 * by several signatures, and the linear-time conditions a quantifier-free pattern cannot state.
 * Every pattern here is quantifier-free too (test/unit/linear-time.test.ts checks the catalogue).
 */
import type { FailureClass } from '../contract/failure-classes.js';

/** One entry of the signature catalogue (signatures.ts). */
export interface Signature {
  /** Stable id, reported with each classification. */
  readonly id: string;
  readonly class: Exclude<FailureClass, 'unknown'>;
  /** One-line human cause. */
  readonly cause: string;
  /** Every pattern must match (an AND of context and cause). Quantifier-free. */
  readonly all: readonly RegExp[];
  /** None of these may match. Quantifier-free. */
  readonly none?: readonly RegExp[];
  /**
   * A further condition no quantifier-free pattern can state (comparing two numbers in the line).
   * Must run in linear time.
   * @default no further condition
   */
  readonly when?: (message: string) => boolean;
  /** CloudWatch Logs filter terms: case-sensitive literals, no double quotes; any one suffices. */
  readonly filter: readonly string[];
}

/**
 * Lines that talk about pulling or fetching an image (kubelet, containerd, dockerd, CRI, ECS agent); dockerd's API
 * handler names a pull by its endpoint (POST /images/create) and its puller says "… with pull after error"; a remote
 * snapshotter (SOCI) fetches layers itself ("unable to create remote fetcher: … request to registry failed").
 */
export const PULL =
  /failed to pull|remote fetcher|request to registry|failed pulling|pulling from host|failed to resolve reference|failed to do request|PullImage|ErrImagePull|ImagePullBackOff|failed to copy|fetch manifest|fetching manifest|fetch blob|fetching blob|Back-off pulling|pull access denied|error pulling|Error while pulling|image pull|pulling image|pull image|can't pull|cannot pull|CannotPull|Error response from daemon|Download failed|Error writing blob|writing blob|copying blob|reading blob|reading manifest|reading image|manifest for|image service failed|images\/create|pull after error/i;
/** Lines that name a registry endpoint (so a network or TLS error is about the registry). */
export const REGISTRY =
  /\/v2\/|\/v1\/|registry|docker|\.dkr\.ecr\.|ecr\.[a-z][a-z]-|public\.ecr\.aws|gcr\.io|quay\.io|ghcr\.io|mcr\.microsoft|manifest|blob|credential provider/i;
/** The node's sandbox (pause) image: any registry, any tag, and the scripts/units that fetch it. */
export const SANDBOX =
  /sandbox image|sandbox-image|sandbox_image|pause image|pod-infra-container-image|pod infra container image|\/pause\b|\bpause:\d|pause-windows|-pause:|-pause"|-pause@|pause.tar|cache-pause-container|kubernetes-pause|"pause"|for pause,|sandboxImage|pod_infra_container_image|podInfraContainerImage/i;
/**
 * The line reports a failure, not progress (botocore's endpoint errors, which the aws CLI prints in the sandbox-image
 * script, say "Could not connect to the endpoint URL" and "Connection was closed before …").
 */
export const FAILURE =
  /fail|error|unable|cannot|can't|could not connect|connection was closed|denied|refused|timeout|timed out|unavailable|exceeded|not found|unknown|BackOff|no space|panic|exited|no such|unauthorized|forbidden|EOF|reset by peer|unreachable|no route to host|x509|toomanyrequests|Too Many Requests|expired|connectex/i;
/** Refusals no name can contain by accident. */
const AUTH_PHRASES =
  /no basic auth credentials|retrieve ecr registry auth|authorization failed|authentication required|pull access denied|denied: requested access|access to the resource is denied|may require 'docker login'|not authorized to perform: ecr:|AccessDenied|Unable to locate credentials|credential provider|NoCredentialProviders|Status 403|Status 401|failed to authorize|anonymous token|oauth token|unauthenticated|failed to retrieve credentials|no EC2 IMDS role found|: denied$|: denied\.$|: denied: |daemon: denied|registry: denied/i;
/** Registry refused the credentials (or had none): also bare status codes and words (see {@link standaloneRefusal}). */
export const AUTH = new RegExp(`\\b401\\b|\\b403\\b|Unauthorized|Forbidden|${AUTH_PHRASES.source}`, 'i');

/**
 * A 401/403 or Unauthorized/Forbidden that stands alone as a status, not inside a tenant's name
 * (pod `app-401`, image tag `:403`, pod `unauthorized-app`): tokens split at blanks, quotes and
 * brackets, one pass, linear.
 */
export function standaloneRefusal(message: string): boolean {
  if (AUTH_PHRASES.test(message)) return true;
  for (const token of message.split(/[\s"'`=(),;[\]{}]+/)) {
    const t = token.replace(/[:.,]+$/, '');
    if (t === '401' || t === '403' || /^(?:Status)?(?:unauthorized|forbidden)$/i.test(t)) return true;
  }
  return false;
}
/**
 * The network path to the registry failed. containerd's resolver says "failed to do request" only when the HTTP
 * client's Do fails (core/remotes/docker/resolver.go: dial, TLS, reset, timeout; a registry's status is reported as
 * "unexpected status"), whatever the wrapped error; a pull that makes no progress is cancelled "because of no progress
 * in" (containerd) or "for" (kubelet's dockershim); the pull's context is then cancelled ("context canceled", as
 * the ECS agent reports a pull that never reached the registry). A proxy's or registry front's 502 is "Bad Gateway" with
 * the code, without it (dockerd: 'Get "https://registry.k8s.io/v2/": Bad Gateway') or in brackets (CRI-O: "502 (Bad
 * Gateway)").
 */
export const UNREACHABLE =
  /failed to do request|because of no progress for|context canceled|i\/o timeout|Client\.Timeout exceeded|request canceled|connection refused|no such host|network is unreachable|TLS handshake timeout|context deadline exceeded|connection reset|no route to host|Temporary failure in name resolution|unexpected EOF|: EOF\b|server misbehaving|dial tcp|timed out|API error \(5|500 Internal Server Error|Bad Gateway|503 Service Unavailable|504 Gateway Time|unexpected status code 5|unexpected HTTP status: 5|awaiting response headers|client connection lost|GOAWAY|stream error: stream ID|transport connection broken|because of no progress in|broken pipe|connectex|wsarecv|forcibly closed|proxyconnect tcp/i;
/**
 * The subscription-filter terms of both registry-unreachable signatures: case-sensitive substrings
 * of {@link UNREACHABLE}'s phrases and of the error words printed around them.
 */
export const UNREACHABLE_TERMS: readonly string[] = [
  'imeout',
  // Both spellings: "request canceled" and kubelet's "Cancel pulling image".
  'ancel',
  'refused',
  'o such',
  'unreachable',
  'xceed',
  'reset',
  'EOF',
  'dial tcp',
  'timed out',
  'rror',
  'vailable',
  'Gateway',
  'ailed',
];
/**
 * Words that say a refusal is no image pull: Argo CD's repo server rendering manifests from a Git or Helm source
 * (GenerateManifest, "Manifest generation error": Kubernetes manifests, not a registry's), and ECR API actions no
 * pull makes (a pull calls GetAuthorizationToken, BatchGetImage, GetDownloadUrlForLayer, BatchCheckLayerAvailability,
 * and through a pull-through cache CreateRepository/BatchImportUpstreamImage; listing, describing, pushing and
 * managing repositories is a CLI's or an application's call).
 */
export const NOT_A_PULL =
  /GenerateManifest|generate manifests|Manifest generation error|RepoServerService|ecr:ListImages|ecr:DescribeRepositories|ecr:DescribeImage|ecr:PutImage|ecr:InitiateLayerUpload|ecr:UploadLayerPart|ecr:CompleteLayerUpload|ecr:BatchDeleteImage|ecr:DeleteRepository|ecr:SetRepositoryPolicy|ecr:GetRepositoryPolicy|ecr:PutLifecyclePolicy|ecr:GetLifecyclePolicy|ecr:ListTagsForResource|ecr:TagResource|ecr:StartImageScan|ecr:DescribeRegistry|the ListImages operation|the DescribeRepositories operation|the DescribeImages operation|the PutImage operation/i;
/**
 * containerd's resolver at debug level reading the registry's token challenge: every response is logged ("fetch
 * response received", 401 included) and a 401 carrying Www-Authenticate is answered with a token on the next request
 * ("Unauthorized" header="Bearer realm=…"; remotes/docker/resolver.go). A refusal is reported otherwise (unexpected
 * status code, failed to authorize, pull access denied). SOCI's remote snapshotter logs the same step at info
 * ("Received status code: 403 Forbidden. Authorizing...") before it retries with a token.
 */
export const AUTH_CHALLENGE =
  /fetch response received|Forbidden. Authorizing\.\.\.|Unauthorized. Authorizing\.\.\.|header="Bearer realm|header="Basic realm|header=\\"Bearer realm|header=\\"Basic realm/;
/**
 * Calls to the Kubernetes API server (their network errors are not registry errors). "apiserver" as a word, not
 * as the last part of an image's name (registry.k8s.io/kube-apiserver, …/apiserver:v1), which a pull names.
 */
export const API_SERVER =
  /\.eks\.amazonaws\.com|\/apis\/|\/api\/v1|\/version|\/healthz|\/leases\/|node-lease|update lease|ensure lease|(?<![-/])apiserver/i;
/**
 * A read or write on a local unix socket (dockerd answering its API client, a CRI client and its runtime): its broken
 * pipe or reset is between two programs on the node, not on the path to a registry. So is dockerd calling its
 * IPAM plugin over the plugin RPC on /run/docker/plugins (libnetwork's remote IPAM driver, every method named
 * IpamDriver.<Method>: "Post http://%2Frun%2Fdocker%2Fplugins%2F<name>.sock/IpamDriver.RequestAddress"), whose 500 or
 * refused socket is the plugin failing though dockerd wraps it as "Error response from daemon".
 */
export const LOCAL_SOCKET = /write unix |read unix |IpamDriver\./i;
/**
 * crictl (cri-tools before 1.24) probing its default endpoints in turn: each endpoint but the last that does not answer
 * is logged at error and crictl goes on ("connect endpoint '<sock>', make sure you are running as root …"); only the
 * last one's failure is fatal, prefixed "connect: ". The probe of an absent socket is no failure.
 */
export const CRICTL_PROBE = /^connect endpoint '|msg="connect endpoint '|ERRO\[\d\d\d\d\] connect endpoint '/;
/**
 * The registry does not have it. Not dockerd's "No such image: <ref>" (daemon/images/image.go ErrImageDoesNotExist):
 * its own image store, looked up by a create, inspect or tag, never a registry's answer.
 */
export const NOT_FOUND =
  /manifest unknown|name unknown|repository does not exist|does not exist in the registry|not found|NotFound/i;

/** The number after `key` (then optional `:` and spaces) in `text`, or undefined. Linear time. */
function numberAfter(text: string, key: string): number | undefined {
  const at = text.indexOf(key);
  if (at < 0) return undefined;
  let i = at + key.length;
  while (text[i] === ':' || text[i] === ' ' || text[i] === '=') i++;
  const start = i;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  return i > start && i - start < 10 ? Number(text.slice(start, i)) : undefined;
}

/** ipamd's pool stats at an assignment (`total 9, assigned 9`): every IP of the node's pool is in use. */
export function poolFull(message: string): boolean {
  const stats = message.toLowerCase().indexOf('pool stats');
  if (stats < 0) return false;
  const rest = message.slice(stats);
  const total = numberAfter(rest, 'total');
  const assigned = numberAfter(rest, 'assigned');
  return total !== undefined && assigned !== undefined && assigned >= total;
}
