import { describe, expect, it } from 'vitest';
import { classify } from '../../lambdas/core/detect/classifier.js';
import { classifyEach, classifyStream, type StreamRecord } from '../../lambdas/core/detect/context.js';
import { readEvent } from '../../lambdas/core/incident/ingest.js';
import { labelledCorpus } from '../support/corpus.js';
import { corpus, subscriptionEvent } from '../support/fixtures.js';

/**
 * Mechanism tests of the context path (context.ts): tune lines of the corpus placed side by side as one stream would
 * carry them. Whether real streams read better is measured on recorded context (`npm run corpus:report`), not here.
 */
const stream = (lines: readonly string[], stepMs = 1000): StreamRecord[] =>
  lines.map((record, i) => ({ record, at: 1_700_000_000_000 + i * stepMs }));
const classes = (lines: readonly string[], stepMs?: number) =>
  classifyStream(stream(lines, stepMs)).map((r) => r.classification?.class ?? 'unknown');

// Tune lines whose label their thread gives, not the line (bench/corpus-report.ts lists them as single-line misses).
const RETRIED = 'CannotPullContainerError: inspect image has been retried 5 time(s): '; // amazon-ecs-agent#3035
const DIAL = 'dial tcp x.x.x.x:443: i/o timeout'; // tencentcloud.com/ind/document/product/457/40028
const KUBEADM = '[WARNING ImagePull]: failed to pull image [k8s.gcr.io/kube-apiserver-amd64:v1.11.10]: exit status 1'; // play-with-docker#336
const BARE_X509 = 'x509: certificate signed by unknown authority'; // goharbor/harbor#5066
// Whole failure lines of the corpus.
const NO_SPACE = corpus().find((l) => l.class === 'disk-full' && /no space left on device/.test(l.line))?.line ?? '';
const BACKOFF = 'Back-off pulling image "nginx:stable"';
const AUTH_NGINX =
  'Failed to pull image "nginx:stable": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/nginx:stable": failed to resolve reference "docker.io/library/nginx:stable": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed';
const PULLING = 'Pulling image "nginx:stable"';

describe('classification with context', () => {
  it('keeps the single-line reading as the fast path: a line that names its cause is read alone', () => {
    const lines = corpus()
      .filter((l) => l.class !== 'unknown' && l.class !== 'image-pull-failed')
      .map((l) => l.line);
    const alone = classifyEach(stream(lines));
    expect(alone.map((r) => r.classification?.class ?? 'unknown')).toEqual(lines.map((l) => classify(l).class));
    expect(classes(lines)).toEqual(lines.map((l) => classify(l).class));
  });

  it('completes a retry summary with the dial error before it, and the dial error with the pull it failed', () => {
    expect([classify(DIAL).class, classify(RETRIED).class]).toEqual(['unknown', 'image-pull-failed']);
    const r = classifyStream(stream([DIAL, RETRIED]));
    expect(r.map((x) => x.classification?.class)).toEqual(['registry-unreachable', 'registry-unreachable']);
    expect(r[1].context).toEqual({ kind: 'neighbour', with: [0] });
  });

  it('gives a warning without a cause the cause on the next line', () => {
    expect(NO_SPACE).not.toBe('');
    expect(classes([KUBEADM, NO_SPACE])).toEqual(['disk-full', 'disk-full']);
    // A bare cause beside a healthy line stays unknown: nothing failed that it could complete.
    expect(classes([PULLING, BARE_X509])).toEqual(['unknown', 'unknown']);
  });

  it('gives a back-off the cause of the same image, never of another image', () => {
    expect(classes([AUTH_NGINX, BACKOFF])).toEqual(['registry-auth', 'registry-auth']);
    expect(classes([AUTH_NGINX, 'Back-off pulling image "redis:7"'])).toEqual(['registry-auth', 'image-pull-failed']);
  });

  it('never turns a healthy line into its neighbour’s failure, nor two healthy lines into one', () => {
    expect(classes([PULLING, AUTH_NGINX, PULLING])).toEqual(['unknown', 'registry-auth', 'unknown']);
    const healthy = corpus()
      .filter((l) => l.class === 'unknown')
      .map((l) => l.line);
    expect(classes(healthy)).toEqual(healthy.map(() => 'unknown'));
  });

  it('rarely reads a healthy line as a failure even beside unrelated failures (tune lines shuffled into one stream)', () => {
    // The worst case for context: every line's neighbours come from other threads. Context may then join a healthy
    // line that holds a cause's words with a pull that stops where its cause would start.
    const tune = labelledCorpus().filter((l) => l.split === 'tune');
    const shuffled = tune.map((l, i) => ({ l, k: (i * 7919) % tune.length })).sort((a, b) => a.k - b.k);
    const lines = shuffled.map((x) => x.l);
    const r = classifyStream(stream(lines.map((l) => l.line)));
    const healthy = lines.flatMap((l, i) => (l.class === 'unknown' ? [r[i]] : []));
    const flipped = healthy.filter((x) => x.context !== undefined && x.classification?.class !== 'unknown');
    expect(healthy.length).toBeGreaterThan(1000);
    expect(flipped.length / healthy.length).toBeLessThan(0.005);
  });

  it('joins only neighbours within the window and the span', () => {
    expect(classes([DIAL, RETRIED], 60_000)).toEqual(['unknown', 'image-pull-failed']);
    expect(classes([DIAL, PULLING, PULLING, PULLING, RETRIED])[4]).toBe('image-pull-failed');
    expect(classes([DIAL, PULLING, PULLING, RETRIED])[3]).toBe('registry-unreachable');
  });

  it('reads a klog multi-line value (key=<, tab-indented lines, " >") as one line', () => {
    // klog's serializer (k8s.io/klog/v2 internal/serialize/keyvalues.go, writeStringValue) prints a value with line
    // breaks so; journald keeps each line as an entry of its own. The value here is a pull error with its x509 cause.
    const value = [
      'E0918 10:00:00.000000    1234 kuberuntime_image.go:43] "Failed to pull image" err=<',
      '\trpc error: code = Unknown desc = failed to pull and unpack image "harbor.example.com/app:1": failed to resolve reference "harbor.example.com/app:1": failed to do request: Head "https://harbor.example.com/v2/app/manifests/1":',
      `\t${BARE_X509}`,
      ' > image="harbor.example.com/app:1"',
    ];
    const records = value.map((message) =>
      JSON.stringify({ hostname: 'ip-10-0-1-2', systemd_unit: 'kubelet.service', message }),
    );
    const r = classifyStream(stream(records));
    expect(r[0].classification?.class).toBe('registry-tls');
    expect(r[0].context).toEqual({ kind: 'joined-value', with: [1, 2, 3] });
    expect(r[0].classification?.entities.node).toBe('ip-10-0-1-2');
  });

  it('opens the occurrence the context names through the ingest path, and not when context is off', () => {
    const config = { logGroupClusters: {}, accountScope: 'account' };
    const event = subscriptionEvent([DIAL, RETRIED], { logGroup: '/aws/containerinsights/prod-eu/application' });
    const withContext = readEvent(event, config, 0);
    expect(withContext.occurrences.map((o) => o.class)).toEqual(['registry-unreachable', 'registry-unreachable']);
    expect(withContext.stats).toMatchObject({ received: 2, classified: 2, unknown: 0 });
    const alone = readEvent(event, { ...config, context: false }, 0);
    expect(alone.occurrences.map((o) => o.class)).toEqual(['image-pull-failed']);
    expect(alone.stats).toMatchObject({ received: 2, classified: 1, unknown: 1 });
  });

  it('reads and joins the ingest path’s redacted text: a secret in a neighbour never reaches the evidence', () => {
    const dial = 'Get https://builder:s3cr3t-pass@registry.example.com/v2/: dial tcp 10.0.0.9:443: i/o timeout';
    const out = readEvent(subscriptionEvent([dial, RETRIED]), { logGroupClusters: {}, accountScope: 'account' }, 0);
    const joined = out.occurrences.find((o) => o.evidence.includes('retried'));
    expect(joined?.class).toBe('registry-unreachable');
    expect(joined?.evidence).toContain('https://builder:[REDACTED]@registry.example.com');
    expect(JSON.stringify(out)).not.toContain('s3cr3t-pass');
  });

  it('keeps an unreadable record unreadable and reads its neighbours without it', () => {
    const r = classifyStream(stream([DIAL, '{"hostname": "x", broken', RETRIED]));
    expect(r[1].quick?.error ?? r[1].classification?.error).toMatch(/invalid JSON/);
    expect(r[2].classification?.class).toBe('registry-unreachable');
  });
});
