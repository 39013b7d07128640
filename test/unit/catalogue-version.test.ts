import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_VERSION, INFORMATIONAL, SIGNATURES } from '../../lambdas/core/detect/signatures.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/**
 * Incidents record the CATALOGUE_VERSION that classified them, so one version must name one catalogue.
 * test/fixtures/catalogue-versions.json records each version's fingerprint: what the catalogue matches
 * (ids, classes, patterns, the name of each extra condition, filter terms, informational patterns; not the
 * prose `cause`; a condition function is named, not hashed: its compiled text differs between transpilers).
 * A catalogue change without a new version fails here; two changes landed under the same new version
 * (two branches bumping at once) conflict in that file or fail here after the rebase.
 */
const RECORDED = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'catalogue-versions.json'), 'utf8'),
) as Record<string, string>;

const pattern = (re: RegExp) => `/${re.source}/${re.flags}`;

function fingerprint(): string {
  const meaning = {
    signatures: SIGNATURES.map((s) => ({
      id: s.id,
      class: s.class,
      all: s.all.map(pattern),
      none: (s.none ?? []).map(pattern),
      when: s.when?.name ?? null,
      filter: s.filter,
    })),
    informational: INFORMATIONAL.map(pattern),
  };
  return createHash('sha256').update(JSON.stringify(meaning)).digest('hex');
}

describe('the catalogue version', () => {
  it('names exactly the catalogue it was recorded for (bump CATALOGUE_VERSION and record it on any change)', () => {
    const now = fingerprint();
    expect(
      RECORDED[CATALOGUE_VERSION],
      `catalogue fingerprint ${now}: give the changed catalogue a new CATALOGUE_VERSION and record it in test/fixtures/catalogue-versions.json`,
    ).toBe(now);
  });

  it('never records two versions for one catalogue or one version for two', () => {
    const fingerprints = Object.values(RECORDED);
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
  });
});
