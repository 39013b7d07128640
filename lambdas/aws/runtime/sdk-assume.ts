import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { AssumeRole } from './credential-broker.js';

/** STS through the SDK (the hub's regional endpoint), chained from the function's own role. */
export const sdkAssume =
  (hubRegion: string): AssumeRole =>
  (params) =>
    fromTemporaryCredentials({ params: { ...params }, clientConfig: { region: hubRegion } });
