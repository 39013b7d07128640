import type { Signature } from './signature-parts.js';
import { NODE_SIGNATURES } from './signatures-node.js';
import { PULL_SIGNATURES } from './signatures-pull.js';

/**
 * The signature catalogue: causes named in kubelet, containerd, dockerd, the VPC CNI (ipamd / aws-cni
 * plugin), credential providers and registries, mapped to failure classes. Signatures match a CAUSE in
 * a CONTEXT (any 401 against any registry while pulling is registry-auth), not one sentence.
 *
 * Order is priority: the first signature whose patterns all match wins, so specific causes come before
 * generic ones (a full disk during a pull is disk-full; any failure of the node's pause image is
 * sandbox-image before it is a registry failure).
 *
 * Linear time by construction: every pattern here is QUANTIFIER-FREE (literal alternatives, character
 * classes, anchors, word boundaries; no `*`, `+`, `?` or `{}` repetition), so one match attempt costs
 * at most the pattern's length and a scan is O(line × pattern). A unit test holds every pattern to it.
 *
 * Each signature names its CloudWatch Logs filter terms (case-sensitive literals; a line the signature
 * matches contains at least one of them): the subscription filter is built from them (filter.ts).
 *
 * Bump CATALOGUE_VERSION whenever a signature is added, removed or changes meaning: incidents record
 * the version that classified them. test/fixtures/catalogue-versions.json records each version's
 * fingerprint (test/unit/catalogue-version.test.ts fails on a change without a new version).
 */
export const CATALOGUE_VERSION = '2026.12.02-r1';

export { poolFull, type Signature, standaloneRefusal } from './signature-parts.js';

export const SIGNATURES: readonly Signature[] = [...NODE_SIGNATURES, ...PULL_SIGNATURES];

/** Lines that look alarming but report progress or success; never a failure of any class. */
export const INFORMATIONAL: readonly RegExp[] = [
  /^Pulling image "|^pulling image "|^Pulling sandbox image/,
  /Successfully pulled image|Pulled successfully|already present on machine/i,
  /msg="PullImage|msg="ImageCreate event|msg="ImageUpdate event|msg="Pulled image|msg="RunPodSandbox for|msg="StartContainer for|msg="CreateContainer within sandbox/,
  // Configuration dumps at start: containerd 1.x prints SandboxImage next to StreamIdleTimeout, kubelet its
  // HardEvictionThresholds and MinReclaim; words of failures, none of them failing.
  /Start cri plugin with config|starting cri plugin|UpdateRuntimeConfig with config|Creating Container Manager object based on Node Config/,
  // containerd 2.x's resolver logs a host's answer before it tries the NEXT host (core/remotes/docker/resolver.go
  // nextHostOrFail); the last host's answer says "fetch failed after status", and the pull's error carries the cause.
  /trying next host after status: /,
];
