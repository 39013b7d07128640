import { describe, expect, it } from 'vitest';
import {
  buildDocumentContent,
  buildRunCommand,
  DocumentBuildError,
  IMAGE_PATTERN,
  NODE_COMMANDS,
} from '../../ssm/documents.js';

const HOSTILE = [
  '$(reboot)',
  '`reboot`',
  'a;reboot',
  'a && reboot',
  'a|reboot',
  "a'b",
  'a"b',
  'a\nreboot',
  'a b',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell expansion is the attack being tested
  '${IFS}reboot',
  '{{ Image }}',
  '../../etc/passwd',
];

describe('SSM document parameters', () => {
  const all = Object.values(NODE_COMMANDS).flatMap((c) => c.parameters.map((p) => [c.script, p] as const));

  it.each(all.map(([s, p]) => [`${s} ${p.name}`, p] as const))(
    '%s rejects shell metacharacters, quotes and newlines',
    (_, p) => {
      const re = new RegExp(p.allowedPattern);
      for (const bad of HOSTILE) expect(re.test(bad), `${p.name} accepted ${JSON.stringify(bad)}`).toBe(false);
    },
  );

  it.each(all.map(([s, p]) => [`${s} ${p.name}`, p] as const))('%s accepts its own default', (_, p) => {
    expect(new RegExp(p.allowedPattern).test(p.default)).toBe(true);
  });

  it.each([
    '602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5',
    '900889452093.dkr.ecr.ap-southeast-2.amazonaws.com/eks/pause:3.10',
    'localhost/kubernetes/pause:latest',
    'registry.k8s.io/pause:3.9',
    '127.0.0.1:5000/eks/pause:3.10',
    `registry.k8s.io/pause@sha256:${'a'.repeat(64)}`,
  ])('accepts the real sandbox image %s', (image) => {
    expect(new RegExp(IMAGE_PATTERN).test(image)).toBe(true);
  });

  it('every string parameter is passed as an environment variable, not spliced into the command', () => {
    for (const spec of Object.values(NODE_COMMANDS)) {
      const content = buildDocumentContent(spec, 'lib', 'script') as {
        parameters: Record<string, { interpolationType: string; allowedPattern: string }>;
      };
      for (const p of Object.values(content.parameters)) {
        expect(p.interpolationType).toBe('ENV_VAR');
        expect(p.allowedPattern).toMatch(/^\^.*\$$/);
      }
    }
  });

  it('the only {{ }} in a command is the single-quoted fallback for old agents', () => {
    const lines = buildRunCommand(NODE_COMMANDS.repairPauseImage, 'lib', 'script');
    const templated = lines.filter((l) => l.includes('{{'));
    expect(templated).toEqual([
      `[ -n "\${SSM_Image+x}" ] || SSM_Image='{{ Image }}'`,
      `[ -n "\${SSM_DryRun+x}" ] || SSM_DryRun='{{ DryRun }}'`,
    ]);
  });

  it('refuses to embed a script that contains {{', () => {
    expect(() => buildRunCommand(NODE_COMMANDS.probeNode, 'lib', 'echo "{{ x }}"')).toThrow(DocumentBuildError);
  });

  it('refuses to embed a script containing the heredoc delimiter', () => {
    expect(() => buildRunCommand(NODE_COMMANDS.probeNode, 'lib', 'x\nPOD_DOCTOR_SCRIPT_EOF\ny')).toThrow(/heredoc/);
  });

  it('refuses a document over the 64 KB SSM limit', () => {
    expect(() => buildDocumentContent(NODE_COMMANDS.probeNode, 'lib', 'x\n'.repeat(40_000))).toThrow(/over SSM/);
  });
});
