/**
 * Metamorphic variations of a whole line that no cause depends on: identifiers (addresses, ids,
 * accounts, regions, pod names, tags), durations, the capitals different programs give one Go error
 * chain's segments, and gRPC status codes printed by name (grpc-go today) or by number (older
 * clients: `rpc error: code = 2 desc = …`). A signature that changes its answer under one of them
 * is tied to a sentence or an identifier, not to a cause.
 */
export interface Variation {
  readonly name: string;
  readonly vary: (line: string) => string;
}

/** A fixed permutation of hex digits (length and shape kept). */
const hex = (s: string) => s.replace(/[0-9a-f]/g, (ch) => '0123456789abcdef'[(Number.parseInt(ch, 16) * 7 + 3) % 16]);

const GRPC_CODES: Readonly<Record<string, number>> = {
  Canceled: 1,
  Unknown: 2,
  DeadlineExceeded: 4,
  NotFound: 5,
  Unavailable: 14,
};

export const VARIATIONS: readonly Variation[] = [
  {
    name: 'IPv4 addresses',
    vary: (s) =>
      s.replace(/\b(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\b/g, (m, a: string, _b, c: string, d: string) =>
        a === '127' || a === '169' ? m : `172.31.${(Number(c) + 7) % 250}.${(Number(d) + 11) % 250}`,
      ),
  },
  // Container ids, digests: hex runs with a letter and a digit (never a JSON number).
  { name: 'hex ids', vary: (s) => s.replace(/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,64}\b/g, hex) },
  {
    name: 'AWS resource ids',
    vary: (s) => s.replace(/\b(eni|subnet|sg|i|vpc|ami)-([0-9a-f]{8,17})\b/g, (_, p, h) => `${p}-${hex(h)}`),
  },
  { name: 'account ids', vary: (s) => s.replace(/(?<![\d.])\d{12}(?![\d.])/g, '210987654321') },
  {
    name: 'regions',
    vary: (s) =>
      s.replace(
        /\b(?:us|eu|ap|ca|sa|me|af)-(?:east|west|north|south|central|northeast|southeast)-\d\b/g,
        'eu-central-1',
      ),
  },
  {
    name: 'pod names',
    vary: (s) => s.replace(/\b[a-z][a-z0-9-]{2,40}-[a-z0-9]{8,10}-[a-z0-9]{5}\b/g, 'checkout-api-6f7d9b8c4d-x2k9q'),
  },
  { name: 'durations', vary: (s) => s.replace(/\b(\d+)(ms|m|s|h)\b/g, (_, n, u) => `${Number(n) + 3}${u}`) },
  { name: 'image tags', vary: (s) => s.replace(/:(v?\d+\.\d+(?:\.\d+)?)(?=["\s]|$)/g, ':v9.8.7') },
  {
    name: 'capitals of error segments',
    vary: (s) =>
      s.replace(
        /(: |^)([a-zA-Z])(?=[a-z]+ )/g,
        (_, p: string, c: string) => p + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()),
      ),
  },
  {
    name: 'gRPC codes by number',
    vary: (s) =>
      s.replace(
        /code = (Canceled|Unknown|DeadlineExceeded|NotFound|Unavailable)\b/g,
        (_, c: string) => `code = ${GRPC_CODES[c]}`,
      ),
  },
];
