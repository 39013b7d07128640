import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { generatedSection } from '../../scripts/docs/generated-section.js';
import {
  type Machine,
  mermaidOf,
  synthesizedDefinition,
  workflowDiagramMarkdown,
} from '../../scripts/docs/workflow-diagram.js';

let definition: Machine;
beforeAll(() => {
  definition = synthesizedDefinition();
});

describe('the workflow picture of docs/architecture.md', () => {
  it('is the state machine pod-doctor synthesizes (npm run docs redraws it)', () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(generatedSection(page, 'workflow-diagram')).toBe(workflowDiagramMarkdown(definition));
    // Every state of the synthesized definition is drawn, under its console name.
    for (const name of Object.keys(definition.States)) expect(page).toContain(`"${name}"`);
  });

  it('draws transitions, Choice defaults, Catch paths and Parallel branches', () => {
    const chart = mermaidOf({
      StartAt: 'Open',
      States: {
        Open: { Type: 'Task', Next: 'Known?', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'end' }] },
        'Known?': { Type: 'Choice', Choices: [{ Next: 'Check' }], Default: 'end' },
        Check: {
          Type: 'Parallel',
          End: true,
          Branches: [{ StartAt: 'Check IAM', States: { 'Check IAM': { Type: 'Task', End: true } } }],
        },
        end: { Type: 'Succeed' },
      },
    }).split('\n');
    expect(chart).toEqual([
      'flowchart TD',
      '  start((start)) --> s_Open',
      '  s_Open["Open"]',
      '  s_Open --> s_Known_',
      '  s_Open -.->|States.ALL| s_end',
      '  s_Known_{"Known?"}',
      '  s_Known_ --> s_Check',
      '  s_Known_ -->|default| s_end',
      '  s_Check["Check"]',
      '  subgraph s_Check_0_sub ["Check: Check IAM"]',
      '  s_Check_0_start((start)) --> s_Check_0_s_Check_IAM',
      '  s_Check_0_s_Check_IAM["Check IAM"]',
      '  end',
      '  s_Check --> s_Check_0_sub',
      '  s_end(["end"])',
    ]);
  });
});
