import { describe, expect, it } from 'vitest';
import { FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';
import { classify } from '../../lambdas/core/detect/classifier.js';
import { buildFilterPattern } from '../../lambdas/core/detect/filter-pattern.js';
import { compileFilterPattern } from '../support/cloudwatch-filter.js';
import { programStrings } from '../support/program-strings.js';

/**
 * The strings amazon-vpc-cni-k8s (ipamd, its datastore and EC2 wrapper, the aws-cni plugin, aws-node's entrypoint
 * and grpc-health-probe), amazon-vpc-resource-controller-k8s and amazon-vpc-cni-plugins (the Windows CNI) print on
 * their failure paths, and the healthy lines that share their words: each format string as the program prints it
 * (ipamd's zap JSON or, before 2019, seelog text; aws-node's logrus text; the kubelet event the plugin's error
 * becomes; the controller's Kubernetes events), its arguments
 * filled with realistic values, the class read from what the program is doing when it prints it, and the file at
 * the commit read. Program strings, not field lines: they are never part of the field corpus or its split.
 */
const strings = programStrings('vpc-cni');
const failures = strings.filter((s) => s.class !== 'unknown');
const passes = compileFilterPattern(buildFilterPattern());

/** How a line reaches CloudWatch Logs: as written, and inside the Container Insights envelopes. */
const asShipped = (line: string): string[] => [
  line,
  JSON.stringify({
    hostname: 'ip-10-0-1-2.us-west-2.compute.internal',
    systemd_unit: 'kubelet.service',
    message: line,
  }),
  JSON.stringify({ log: line, stream: 'stderr', kubernetes: { container_name: 'aws-node' } }),
];

/** The format string's literal text between its verbs (%v, %s, %d, %q, %+v, %t …), the shorter bits left out. */
const literals = (format: string): string[] =>
  format
    .split(/%[-+# 0]*[a-zA-Z]/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 4);

describe('program strings of the VPC CNI, the VPC resource controller and the Windows CNI', () => {
  it('name a class, the format string and the source file at a pinned commit for every line', () => {
    expect(strings.length).toBeGreaterThanOrEqual(120);
    for (const s of strings) {
      expect(FAILURE_CLASSES, s.line).toContain(s.class);
      expect(s.source, s.line).toMatch(
        /^https:\/\/github\.com\/aws\/amazon-vpc-(cni-k8s|resource-controller-k8s|cni-plugins)\/blob\/[0-9a-f]{40}\/\S+#L\d+$/,
      );
      expect(s.template.length, s.line).toBeGreaterThan(0);
    }
  });

  it('render each format string: its literal text appears in the line, in order', () => {
    for (const s of strings) {
      const { message } = classify(s.line);
      let from = 0;
      for (const part of literals(s.template.split('\\n')[0])) {
        const at = message.indexOf(part, from);
        expect(at, `${part} in ${s.line}`).toBeGreaterThanOrEqual(0);
        from = at + part.length;
      }
    }
  });

  it('cover every failure path of ipamd, the plugin and the controller, and healthy look-alikes', () => {
    const classes = new Set(strings.map((s) => s.class));
    for (const c of [
      'ip-exhaustion',
      'cidr-fragmentation',
      'cni-permissions',
      'ipamd-unavailable',
      'cni-failure',
      'branch-eni',
      'windows-ipam',
      'unknown',
    ])
      expect(classes, c).toContain(c);
    expect(strings.filter((s) => s.class === 'unknown').length).toBeGreaterThanOrEqual(30);
  });

  it.each(strings.map((s) => [`${s.class} <- ${s.format}: ${s.template.slice(0, 90)}`, s] as const))('%s', (_, s) => {
    const c = classify(s.line);
    expect(c.error).toBeUndefined();
    expect(c.class, s.line).toBe(s.class);
  });

  it('let every failure line through the subscription filter, as written and inside Container Insights envelopes', () => {
    const blocked = failures.filter((s) => !asShipped(s.line).every(passes));
    expect(blocked.map((s) => `${s.class}: ${s.line.slice(0, 160)}`)).toEqual([]);
  });
});
