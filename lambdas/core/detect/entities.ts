import { createHash } from 'node:crypto';

/**
 * What a failure line says about where it happened. Only keys that were found are present.
 * `node` and `instanceId` come only from the record's envelope (Container Insights `hostname` /
 * `ec2_instance_id`, the journal prefix, the kubectl From column), never from the message text a
 * tenant can write into (pod names, images, container commands).
 */
export interface Entities {
  pod?: string;
  namespace?: string;
  node?: string;
  instanceId?: string;
  image?: string;
  registryHost?: string;
  ecrAccount?: string;
  ecrRegion?: string;
  sandboxImage?: string;
  subnetId?: string;
  eniId?: string;
  errorCode?: string;
}

const IMAGE_QUOTED =
  /(?:Failed to pull image|Back-off pulling image|failed to pull and unpack image|failed to resolve reference|image|PullImage) "([^"\s]+)"/i;
const IMAGE_KV = /\bimage="([^"\s]+)"/;
const SANDBOX_IMAGE = /sandbox image "([^"\s]+)"/i;
const ECR_HOST = /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;
const POD_KV = /\bpod="([a-z0-9.-]+)\/([a-z0-9.-]+)"/;
const POD_CNI = /K8S_POD_NAMESPACE=([a-z0-9.-]+);K8S_POD_NAME=([a-z0-9.-]+)/;
const POD_UNDERSCORE = /set up pod "([a-z0-9.-]+)_([a-z0-9.-]+)"/;
const POD_QUOTED = /(?:for pod|Pod) "([a-z0-9][a-z0-9._-]*)"/i;
const SUBNET = /\b(subnet-[0-9a-f]{8,17})\b/;
const ENI = /\b(eni-[0-9a-f]{8,17})\b/;
const ERROR_CODE =
  /\b(?:Client\.)?(InsufficientCidrBlocks|InsufficientFreeAddressesInSubnet|PrivateIpAddressLimitExceeded|AttachmentLimitExceeded|NetworkInterfaceLimitExceeded|UnauthorizedOperation|MissingIAMPermissions|RequestLimitExceeded|AccessDenied(?:Exception)?|NoCredentialProviders)\b/;

/** The registry host of an image reference (Docker Hub when the first path part is not a host). */
export function registryHost(image: string): string {
  const first = image.split('/')[0];
  if (image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')) return first;
  return 'docker.io';
}

/** Longest entity value kept as is (an image reference is at most 255 characters). */
export const MAX_ENTITY_CHARS = 256;

/** A value short enough for keys and inputs: longer ones keep a prefix and a hash of the whole. */
export function capValue(v: string, max = MAX_ENTITY_CHARS): string {
  if (v.length <= max) return v;
  const h = createHash('sha256').update(v).digest('hex').slice(0, 16);
  return `${v.slice(0, max - 22)}…#${h}`;
}

/** Every entity value capped (see capValue). */
export function capEntities(e: Entities): Entities {
  const out: Entities = {};
  for (const [k, v] of Object.entries(e) as [keyof Entities, string | undefined][]) {
    if (typeof v === 'string') out[k] = capValue(v);
  }
  return out;
}

/** Extracts entities from a classified message (text already unescaped). */
export function extractEntities(message: string, known: Entities = {}): Entities {
  const e: Entities = { ...known };
  const sandbox = SANDBOX_IMAGE.exec(message)?.[1];
  if (sandbox) e.sandboxImage = sandbox;
  const image = sandbox ?? IMAGE_QUOTED.exec(message)?.[1] ?? IMAGE_KV.exec(message)?.[1];
  if (image) {
    e.image = image;
    e.registryHost = registryHost(image);
    const ecr = ECR_HOST.exec(e.registryHost);
    if (ecr) {
      e.ecrAccount = ecr[1];
      e.ecrRegion = ecr[2];
    }
  }
  const pod = POD_KV.exec(message) ?? POD_CNI.exec(message);
  if (pod) {
    e.namespace = pod[1];
    e.pod = pod[2];
  } else {
    const u = POD_UNDERSCORE.exec(message);
    if (u) {
      e.pod = u[1];
      e.namespace = u[2];
    } else {
      const q = POD_QUOTED.exec(message)?.[1];
      if (q) e.pod = q;
    }
  }
  // Node and instance only from the envelope (`known`): a pod named like an instance id is not a target.
  e.subnetId ??= SUBNET.exec(message)?.[1];
  e.eniId ??= ENI.exec(message)?.[1];
  e.errorCode ??= ERROR_CODE.exec(message)?.[1];
  for (const k of Object.keys(e) as (keyof Entities)[]) if (e[k] === undefined) delete e[k];
  return capEntities(e);
}
