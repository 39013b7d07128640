import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';
import { classify, classifyMessage, matchSignatures } from '../../lambdas/core/detect/classifier.js';
import { SIGNATURES } from '../../lambdas/core/detect/signatures.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { fieldCorpus, labelledCorpus, projectCorpus, splitOf } from '../support/corpus.js';
import { evaluate } from '../support/corpus-report.js';
import { fuzz } from '../support/fuzz.js';

const project = projectCorpus();
const all = labelledCorpus();
const tune = all.filter((l) => l.split === 'tune');
const heldOut = all.filter((l) => l.split === 'held-out');

describe("the project's own corpus", () => {
  it.each(project.map((l) => [`${l.class} ← ${l.source}: ${l.line.slice(0, 70)}`, l] as const))('%s', (_, l) => {
    const c = classify(l.line);
    expect(c.error).toBeUndefined();
    expect(c.class).toBe(l.class);
  });
});

describe('field corpus', () => {
  it('holds real lines with public source URLs, split by source before tuning', () => {
    const field = fieldCorpus();
    expect(field.length).toBeGreaterThanOrEqual(300);
    for (const l of field) expect(l.source, l.line.slice(0, 60)).toMatch(/^https:\/\/\S+$/);
    // The split is a function of the source alone: every line of a source lands on the same side.
    const sides = new Map<string, Set<string>>();
    for (const l of field) sides.set(l.source, (sides.get(l.source) ?? new Set()).add(l.split));
    expect([...sides.values()].every((s) => s.size === 1)).toBe(true);
    expect(splitOf('https://github.com/aws/amazon-vpc-cni-k8s/issues/1')).toBe(
      splitOf('https://github.com/aws/amazon-vpc-cni-k8s/issues/1'),
    );
    const share = heldOut.length / field.length;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.35);
  });

  it('has real examples of every failure class in the tune split', () => {
    const covered = new Set(tune.map((l) => l.class));
    expect(FAILURE_CLASSES.filter((c) => !covered.has(c))).toEqual([]);
  });

  it('names the right class for at least 97% of the tune split', () => {
    const r = evaluate(tune);
    expect(r.accuracy, r.misses.join('\n')).toBeGreaterThanOrEqual(0.97);
  });

  it('keeps precision on the tune split: every healthy line stays unknown but the known look-alikes', () => {
    const wrong = tune.filter((l) => l.class === 'unknown' && classify(l.line).class !== 'unknown');
    expect(wrong.map((l) => `${classify(l.line).class} <- ${l.source}`).sort()).toEqual(
      KNOWN_HEALTHY_LOOK_ALIKES.map(([cls, source]) => `${cls} <- ${source}`).sort(),
    );
    expect(tune.filter((l) => l.class === 'unknown').length).toBeGreaterThanOrEqual(60);
  });

  it('generalises to the held-out sources (measured floor; the goal is 97%)', () => {
    // Only the score is asserted; which held-out lines miss is not printed, so nobody tunes on them.
    const r = evaluate(heldOut);
    expect(heldOut.length).toBeGreaterThanOrEqual(100);
    expect(r.accuracy).toBeGreaterThanOrEqual(HELD_OUT_FLOOR);
  });
});

/**
 * Healthy tune lines no single-line reading can tell from a failure, each kept as mined (never dropped for the
 * classifier's sake): [what the classifier says, source, why the line says no more].
 */
const KNOWN_HEALTHY_LOOK_ALIKES: readonly (readonly [string, string, string])[] = [
  [
    'runtime-failure',
    'https://github.com/weaveworks/weave/issues/2822',
    "a 2017 kubelet's 'container runtime is down' in the second it starts (later kubelets say 'may not have completed yet' then)",
  ],
  [
    'registry-auth',
    'https://github.com/aws/aws-sdk-js-v3/issues/2477',
    "an application's ECR API client without its IRSA role ('Unable to get image: nginx. AccessDenied'), not a pull",
  ],
  [
    'runtime-failure',
    'https://github.com/rancher-sandbox/rancher-desktop/issues/3743',
    "a desktop notification's title, the event's reason and pod without its message ('FailedCreatePodSandBox: Pod …'): labelled unknown as it names no cause, read as a sandbox failure no more specific signature names",
  ],
  [
    'registry-unreachable',
    'https://github.com/EnricoMi/publish-unit-test-result-action/issues/257',
    "a GitHub Actions runner's docker CLI ('Error response from daemon: Head \"https://ghcr.io/…\": … Client.Timeout exceeded'): word for word a node-side pull timeout, only the runner context says otherwise",
  ],
  [
    'registry-unreachable',
    'https://github.com/irongut/CodeCoverageSummary/issues/6',
    "a GitHub Actions runner's docker CLI ('Error response from daemon: received unexpected HTTP status: 503 Service Unavailable'): the same words as a node-side pull",
  ],
  [
    'runtime-failure',
    'https://github.com/etcd-io/etcd/issues/15836',
    "etcdctl's bare 'Error: context deadline exceeded', the same words as kubelet's CreateContainerError event message",
  ],
];

/**
 * Measured on the held-out split (npm run corpus:report): 214/240 = 89.2% before the cause-based
 * signatures; with 46 more field lines from 28 new sources, 219/251 = 87.3% before and 231/251 = 92.0%
 * after them. Round 3 (102 lines from 63 new sources, signatures from the programs' format strings):
 * 262/282 = 92.9% before and 264/282 = 93.6% after; with 44 more lines from 31 new sources and the
 * stale-PLEG, kubelet-JSON `err`, and image-context causes, 283/299 = 94.6%; with bash's fork retry, CRI
 * create/start timeouts, Windows socket errors, EC2 AuthFailure and pause-image names, 286/300 = 95.3%;
 * with 30 more lines (Calico IPAM exhaustion, healthy lines sharing failure words), 287/301 = 95.3%;
 * with the sandbox-failure fallback and registry-auth's image-credential context, 291/304 = 95.7%.
 * Round 4 (43 lines from 34 new sources, 6 of them held out; Windows warm pool, EC2's cidr-block and
 * not-authorized texts, ipamd's gRPC Unavailable/DeadlineExceeded): 299/312 = 95.8% both before and after.
 * Round 4b (65 more lines from 42 new sources, 15 of them held out; Calico's AutoAssign summary, Cilium's
 * allocation wrapper read by its cause): 321/335 = 95.8%.
 * Round 4c (49 more lines from 34 new sources, 6 of them held out; ipamd without a path to EC2, the eviction
 * manager's missing ranking, Go's HTTP/2 GOAWAY and stream errors while pulling): 329/343 = 95.9%.
 * With containerd's pull-progress timeout ('cancel pulling image … because of no progress in', image_pull.go)
 * read as the registry path stalling: 330/343 = 96.2%.
 * Round 5: ipamd's walk of its pool (each full CIDR or ENI, data_store.go) relabelled unknown by a blind rule over
 * both splits (4 tune lines, 1 held-out line), the function names in ipamd's debug lines no longer read as causes:
 * 331/343 = 96.5% (the +1 is the relabelled line; the signatures changed no held-out answer). Round 5b (55 lines
 * from 17 new sources, 1 held out; kubelet's PID-pressure taint and condition, containerd's ImageDelete of the
 * sandbox image, dockerd's shim error, podman's runtime probe): 332/344 = 96.5% (the +1 is the new held-out line).
 * Round 5c (33 lines from 11 new sources, 14 of them from 3 held-out sources; the node-CIDR allocator with no
 * range left, Calico strict-affinity block exhaustion, whereabouts' full range, EKS's InsufficientFreeAddresses):
 * 345/358 = 96.4%; the signatures changed no held-out answer. Round 5d (26 lines from 8 sources, 1 held out; kubelet's
 * pod worker on a CRI deadline, the API server's RBAC denials no registry refusal): 346/359 = 96.4%. Round 5e (3 lines
 * from 3 credential-provider sources, 1 held out; C++ std::system_error EAGAIN): 346/360 = 96.1% (the new held-out
 * line is missed). Round 5f (27 lines from 12 sources, 5 of them held out; other EC2 clients refused alike are no
 * CNI permission): 351/365 = 96.2%. Round 5g (15 lines from 5 Argo CD sources, 7 from held-out ones; a token is the
 * registry's only when its flow is named): 358/372 = 96.2%. With 2 more lines (a quoted ipamd walk step, a node group
 * that never joined): 359/373 = 96.2%. With the rest of three tune PLEG threads' lines: 359/373 = 96.2%.
 * Round 7a (test/fixtures/field/lookalike.jsonl: 138 lines from 54 new sources, 13 of them held out; healthy
 * look-alikes of controllers, applications and CLIs; a node launcher's EC2 denials no CNI permission, Argo CD's
 * manifest rendering and ECR API calls no pull makes no registry-auth): 382/397 = 96.2%.
 * Round 7f (41 more look-alike lines from 12 new sources, 1 held out: kubelet's missing-imagePullSecret warning no
 * image-not-found, the network policy agent's probes, a Calico felix line): 382/398 = 96.0% (the new held-out line is
 * missed; it was not looked at and changed nothing).
 * Round 7g (24 lines from 7 new tune sources: containerd's resolver reading the registry's token challenge is no
 * registry-auth): 382/398 = 96.0%.
 * Round 7h (28 lines from 7 new sources, 1 held out: probe failures of running containers, registry pods included, and
 * Normal events): 384/400 = 96.0%.
 * Round 8 (field-web, field-node-2, field-pull-2: 804 lines from 319 new sources, 82 of them held out; causes read
 * from the programs' own wording, r19-r32): 591/614 = 96.3% (the 214 new held-out lines: 207 right).
 * Round 9 (field-ip-3, field-pull-3, field-node-3, lookalike-2: 186 lines from 125 new sources, 36 of them held out;
 * most are look-alikes mined for the words the signatures key on; r1-r2 of 2026.12.01): 640/668 = 95.8% (the 54 new
 * held-out lines: 49 right; 49 of them are look-alikes, the class whose held-out precision the round tested).
 * Round 10 (classification with context; no catalogue change, no corpus line added): 640/668 = 95.8% at
 * the start and at the end, single-line and context path alike (no held-out line carries recorded context). The
 * context path is judged on the fresh field set instead (test/fixtures/fresh/).
 * A floor, not the goal (97%).
 */
const HELD_OUT_FLOOR = 0.95;

describe('fast path', () => {
  it('the pre-filter never hides a match: random mixes of signature fragments classify alike with and without it', () => {
    const fragments = [
      ...new Set(
        SIGNATURES.flatMap((sig) => [...sig.all, ...(sig.none ?? [])])
          .flatMap((re) => re.source.split('|'))
          .map((f) => f.replace(/\\b|\\/g, '').trim())
          .filter((f) => f.length > 1),
      ),
      ...tune.flatMap((l) => l.line.split(/\s+/)).slice(0, 600),
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...fragments), { minLength: 1, maxLength: 8 }),
        fc.string({ maxLength: 20 }),
        (parts, noise) => {
          const message = `${parts.join(' ')} ${noise}`;
          expect(classifyMessage(message)).toEqual(matchSignatures(message));
        },
      ),
      fuzz(5000),
    );
  });

  it('everyday kubelet, containerd and ipamd lines stay unknown', () => {
    const noise = readFileSync(join(PROJECT_ROOT, 'test/fixtures/healthy-noise.txt'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(noise.length).toBeGreaterThanOrEqual(20);
    for (const n of noise) expect(classify(n).class, n).toBe('unknown');
  });
});
