import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FILE, bundleHandler } from '../../lib/constructs/bundling.js';
import { lambdaEntry, PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { KubeApiServer } from '../../local/kube-api-server.js';
import { handlerCode, handlerMetafile, invokeBundled, runNode } from '../support/bundles.js';

/**
 * The Kubernetes bundles load only the parts of @kubernetes/client-node they use (deep
 * imports, no KubeConfig, whatwg-url replaced by Node's URL). Whatever that leaves out must not be
 * needed: bundles built with the deployed options, outside the project (no node_modules to fall back
 * on), in fresh node processes, talk to the local HTTPS API server (recorded objects, RBAC).
 */
const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const server = new KubeApiServer();
const handlerDir = mkdtempSync(join(tmpdir(), 'pod-doctor-k8s-bundle-'));
const probeDir = mkdtempSync(join(tmpdir(), 'pod-doctor-k8s-probe-'));
const cacheDir = join(PROJECT_ROOT, 'node_modules', '.cache', `pod-doctor-map-test-${process.pid}`);
let endpoint = '';
let eks: Server;
let eksEndpoint = '';

/** EKS DescribeCluster (GET /clusters/{name}) answering with the local API server and its CA. */
function localEks(): Server {
  return createServer((req, res) => {
    const name = /^\/clusters\/([^/?]+)/.exec(req.url ?? '')?.[1];
    res.writeHead(name === 'prod' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        name === 'prod'
          ? {
              cluster: {
                name,
                status: 'ACTIVE',
                endpoint,
                certificateAuthority: { data: server.caData },
                accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
              },
            }
          : { message: `No cluster found for name: ${name}` },
      ),
    );
  });
}

async function runProbe(): Promise<Record<string, unknown>> {
  const env = { KUBE_ENDPOINT: endpoint, KUBE_CA: server.caData, KUBE_NODE: NODE };
  return JSON.parse((await runNode([join(probeDir, BUNDLE_FILE)], probeDir, env)).stdout);
}

const ENV = () => ({
  AWS_REGION: 'us-east-2',
  AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_ENDPOINT_URL_EKS: eksEndpoint,
  POWERTOOLS_METRICS_NAMESPACE: 'PodDoctor',
  POWERTOOLS_SERVICE_NAME: 'pod-doctor',
  // As PodDoctorFunction sets it on every function (the handler parses its environment at start-up).
  NODE_OPTIONS: '--enable-source-maps',
});
const CONTEXT = { functionName: 'pod-doctor-kubernetes', awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678' };

beforeAll(async () => {
  endpoint = await server.start();
  eks = localEks();
  await new Promise<void>((r) => eks.listen(0, '127.0.0.1', r));
  eksEndpoint = `http://127.0.0.1:${(eks.address() as AddressInfo).port}`;
  bundleHandler(lambdaEntry('kubernetes').source, handlerDir);
  bundleHandler(join(PROJECT_ROOT, 'test/support/kubernetes-probe.ts'), probeDir);
  bundleHandler(lambdaEntry('kubernetes').source, cacheDir);
});
afterAll(async () => {
  await server.stop();
  await new Promise<void>((r) => eks.close(() => r()));
  for (const d of [handlerDir, probeDir, cacheDir]) rmSync(d, { recursive: true, force: true });
});

describe('the bundled Kubernetes client against the local API server', () => {
  it("deserializes lists across `continue` pages, events and the DaemonSet into the library's models", async () => {
    server.seen.length = 0;
    const probe = await runProbe();
    expect(probe).toEqual({
      pods: 11,
      podsAreV1Pod: true,
      // One recorded pod has no creationTimestamp; every other one's is a Date.
      podsCreated: 10,
      podsCreatedAsDate: 10,
      events: 5,
      eventsLastAsDate: 5,
      classified: [
        'Failed@2026-11-30T10:01:41.000Z',
        'Failed@2026-11-30T10:01:41.000Z',
        'BackOff@2026-11-30T10:02:06.000Z',
      ],
      daemonSetIsV1DaemonSet: true,
      awsNodeImage: expect.stringContaining('amazon-k8s-cni'),
      node: NODE,
    });
    // Two items a page: the node's eleven pods took six requests, all but the first with a continue token.
    const lists = server.seen.filter((r) => r.path === '/api/v1/pods');
    expect(lists.map((r) => Boolean(r.query.get('continue')))).toEqual([false, true, true, true, true, true]);
  });

  it('the kubernetes handler bundle inspects a node: EKS DescribeCluster, token, lists, events, node', async () => {
    server.seen.length = 0;
    const event = {
      action: 'inspect',
      cluster: 'prod',
      node: { privateDnsName: NODE },
      entities: {},
      failureClass: 'sandbox-image',
    };
    const answer = await invokeBundled<{
      action: string;
      findings: { id: string; status: string; evidence: unknown }[];
    }>(handlerDir, event, CONTEXT, ENV());
    expect(answer.action).toBe('inspect');
    const stuck = answer.findings.find((f) => f.id === 'k8s.stuck-pods');
    expect(stuck).toMatchObject({ status: 'fail', evidence: { count: 4 } });
    expect(server.seen[0]?.authorization).toMatch(/^Bearer k8s-aws-v1\./);
    expect(server.forbidden).toEqual([]);
  });

  it('the kubernetes handler bundle refuses a malformed request in words (zod/mini with its English locale)', async () => {
    const event = { action: 'verify', cluster: '', node: {}, pods: [], windowSeconds: 0.5 };
    await expect(invokeBundled(handlerDir, event, CONTEXT, ENV())).rejects.toThrow(
      /EventParseError[\s\S]*cluster: Too small: expected string to have >=1 characters[\s\S]*node\.privateDnsName: Invalid input: expected string/,
    );
  });

  it('the kubernetes handler bundle verifies through a watch that the pod started', async () => {
    const pod = structuredClone(server.cluster.pods[0]) as {
      metadata: { namespace: string; name: string; uid: string };
      status: Record<string, unknown>;
    };
    pod.status.phase = 'Running';
    pod.status.containerStatuses = [
      { name: 'app', ready: true, state: { running: { startedAt: '2026-11-30T10:06:00Z' } } },
    ];
    server.watchSteps = [{ afterMs: 100, type: 'MODIFIED', object: pod }];
    const { metadata } = pod;
    const event = {
      action: 'verify',
      cluster: 'prod',
      node: { privateDnsName: NODE },
      pods: [{ namespace: metadata.namespace, name: metadata.name, uid: metadata.uid }],
      windowSeconds: 20,
    };
    const answer = await invokeBundled<{ verdict: { verified: boolean; started: { pod: string }[] } }>(
      handlerDir,
      event,
      CONTEXT,
      ENV(),
    );
    expect(answer.verdict.verified).toBe(true);
    expect(answer.verdict.started.map((s) => s.pod)).toEqual([`${metadata.namespace}/${metadata.name}`]);
  });
});

/** Packages @kubernetes/client-node depends on for what pod-doctor never runs (exec, cp, OIDC, kubeconfig files, proxies). */
const UNUSED = [
  'ws',
  'isomorphic-ws',
  'tar-fs',
  'tar-stream',
  'openid-client',
  'oauth4webapi',
  'js-yaml',
  'jsonpath-plus',
  'socks-proxy-agent',
  'hpagent',
  'whatwg-url',
  'tr46',
];

describe('what the Kubernetes bundles leave out', () => {
  it('the pre-filter’s anchors and automaton: the Kubernetes functions build them at their first line only; ingest, which reads lines at every invocation, at init', () => {
    // A top-level statement: a line at column 0 that is not a function declaration.
    const builtAtTopLevel =
      /^(?!function |async function )(?=\S).*(?:anchorIndex|anchorCatalogue|new AnchorGroupAutomaton|prepareAnchorIndex)\(/m;
    for (const h of ['kubernetes', 'kubernetes-sweep', 'kubernetes-events', 'ingest']) {
      const code = handlerCode(h);
      expect(code, h).toContain('automaton: new AnchorGroupAutomaton(groups)');
      if (h === 'ingest') expect(code, h).toMatch(builtAtTopLevel);
      else expect(code, h).not.toMatch(builtAtTopLevel);
    }
  });

  it.each([
    ['in a temporary directory', () => handlerDir],
    ["under the project's node_modules (the bench's cache)", () => cacheDir],
  ])("the source map keeps pod-doctor's sources and only the names and lines of dependencies' (%s)", (_, dir) => {
    const map = JSON.parse(readFileSync(join(dir(), `${BUNDLE_FILE}.map`), 'utf8')) as {
      sources: string[];
      sourcesContent: (string | null)[];
    };
    const withText = map.sources.filter((_s, i) => map.sourcesContent[i] !== null);
    expect(withText.length).toBeGreaterThan(20);
    expect(withText.filter((s) => !/(^|\/)lambdas\//.test(s) || s.includes('node_modules'))).toEqual([]);
    const ownFile = map.sources.findIndex((s) => s.endsWith('lambdas/aws/readers/kubernetes/cluster-api.ts'));
    expect(map.sourcesContent[ownFile]).toContain('class ClusterApi');
    expect(map.sources.filter((s) => s.includes('@kubernetes/client-node/')).length).toBeGreaterThan(100);
  });

  it.each(['kubernetes', 'kubernetes-sweep', 'kubernetes-events'])(
    "%s: the library's serializer and HTTP, none of the unused parts",
    (h) => {
      const inputs = Object.values(handlerMetafile(h).outputs).flatMap((o) =>
        Object.entries(o.inputs)
          .filter(([, i]) => i.bytesInOutput > 0)
          .map(([p]) => p),
      );
      const packages = new Set(inputs.map((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1]));
      expect(UNUSED.filter((p) => packages.has(p))).toEqual([]);
      // No KubeConfig, and none of the generated API classes (generated-api.ts builds the requests they would).
      expect(inputs.filter((p) => /client-node\/dist\/(config|gen\/apis\/\w+Api)\.js$/.test(p))).toEqual([]);
      expect(inputs).toEqual(
        expect.arrayContaining([
          'node_modules/@kubernetes/client-node/dist/gen/models/ObjectSerializer.js',
          'node_modules/@kubernetes/client-node/dist/gen/http/isomorphic-fetch.js',
          'node_modules/@kubernetes/client-node/dist/gen/apis/exception.js',
        ]),
      );
    },
  );
});
