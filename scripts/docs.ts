/**
 * `npm run docs`: writes the generated parts of docs/ between their markers —
 * docs/configuration.md (the configuration reference, from the PodDoctorProps declarations and lib/config.ts's schema) and
 * docs/architecture.md (the workflow picture, from the synthesized state machine).
 * `npm run docs -- --check` fails when a page differs from what would be generated.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import { configReferenceMarkdown } from './docs/config-reference.js';
import { replaceGenerated } from './docs/generated-section.js';
import { workflowDiagramMarkdown } from './docs/workflow-diagram.js';

const check = process.argv.includes('--check');
const pages: [string, string, () => string][] = [
  ['docs/configuration.md', 'configuration-reference', configReferenceMarkdown],
  ['docs/architecture.md', 'workflow-diagram', () => workflowDiagramMarkdown()],
];
let stale = 0;
for (const [page, marker, generate] of pages) {
  const path = join(PROJECT_ROOT, page);
  const text = readFileSync(path, 'utf8');
  const next = replaceGenerated(text, marker, generate());
  if (next === text) continue;
  stale++;
  if (check) process.stderr.write(`${page}: the ${marker} section is not what the code generates (npm run docs)\n`);
  else writeFileSync(path, next);
}
process.exitCode = check && stale ? 1 : 0;
