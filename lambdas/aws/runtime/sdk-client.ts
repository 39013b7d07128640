import { tracer } from './powertools.js';

/** Throttling is retried by the SDK (standard mode, exponential backoff) before a check reports `error`. */
export const CLIENT_OPTIONS = { maxAttempts: 6 } as const;

/** A traced SDK client with pod-doctor's retry settings (`region` for clients of another region). */
export function sdkClient<C>(Client: new (config: { maxAttempts: number; region?: string }) => C, region?: string): C {
  return tracer.captureAWSv3Client(new Client(region ? { ...CLIENT_OPTIONS, region } : CLIENT_OPTIONS));
}

/** One client per region, created on first use and reused for the life of the execution environment. */
export function perRegion<C>(create: (region: string) => C): (region: string) => C {
  const clients = new Map<string, C>();
  return (region) => {
    let c = clients.get(region);
    if (!c) {
      c = create(region);
      clients.set(region, c);
    }
    return c;
  };
}
