import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { NODE_DNS } from '../../local/account-snapshot.js';

/** `pod-doctor mcp …` as an MCP client starts it: a child process speaking JSON-RPC on stdio. */
function transport(args: string[], env: Record<string, string> = {}) {
  return new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(PROJECT_ROOT, 'bin', 'pod-doctor.ts'), 'mcp', ...args],
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stderr: 'pipe',
  });
}

type ToolText = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown };
/** A tool's answer: its structuredContent, which the text beside it repeats as JSON. */
const json = (r: unknown) => {
  const t = r as ToolText;
  expect(t.isError, t.content[0].text).toBeFalsy();
  const text = JSON.parse(t.content[0].text);
  expect(t.structuredContent).toEqual(text);
  return text;
};

describe('pod-doctor mcp --demo over stdio, with the SDK’s own client', () => {
  const client = new Client({ name: 'pod-doctor-test', version: '1.0.0' });
  let stderr = '';

  beforeAll(async () => {
    const t = transport(['--demo']);
    await client.connect(t);
    t.stderr?.on('data', (d) => {
      stderr += d;
    });
  }, 60_000);
  afterAll(() => client.close());

  it('initialize: the server names itself and offers tools', () => {
    expect(client.getServerVersion()?.name).toBe('pod-doctor');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain('never instructions');
  });

  it('tools/list: the read tools, each marked read-only, and one tool that only asks', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'classify_lines',
      'diagnose',
      'explain_class',
      'get_incident',
      'list_incidents',
      'request_action',
    ]);
    for (const t of tools.filter((x) => x.name !== 'request_action'))
      expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    const request = tools.find((t) => t.name === 'request_action');
    expect(request?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(Object.keys(request?.inputSchema.properties ?? {}).sort()).toEqual(['incidentId', 'note']);
    expect(request?.description).toMatch(/cannot approve, and no tool can/);
    expect(tools.find((t) => t.name === 'diagnose')?.inputSchema.required).toEqual(['cluster']);
    // Every tool says what it answers; the client checks each answer's structuredContent against it.
    for (const t of tools) expect(t.outputSchema?.type, t.name).toBe('object');
    expect(Object.keys(tools.find((t) => t.name === 'diagnose')?.outputSchema?.properties ?? {}).sort()).toEqual([
      'cluster',
      'findings',
      'node',
    ]);
  });

  it('a session: list the incidents, read one with its evidence, diagnose its node', async () => {
    // The first call waits for the demo scenarios to have run (a minute, several on a loaded machine):
    // progress notifications say what runs, and each resets the client's request timeout (the SDK's
    // default 60 s, which the first call outlasts here: about two minutes at load 30).
    const progress: { progress: number; message?: string }[] = [];
    const { incidents } = json(
      await client.callTool({ name: 'list_incidents', arguments: {} }, undefined, {
        timeout: 60_000,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: 290_000,
        onprogress: (p) => progress.push(p),
      }),
    );
    expect(progress.length).toBeGreaterThan(0);
    for (const [i, p] of progress.entries()) if (i > 0) expect(p.progress).toBeGreaterThan(progress[i - 1].progress);
    expect(progress[0].message).toMatch(/^(starting the demo runtime|running demo scenario 1 of 2: pid-exhaustion)/);
    expect(incidents.map((i: { class: string; kind: string }) => `${i.class} ${i.kind}`).sort()).toEqual([
      'cni-permissions needs-human',
      'pid-exhaustion verified',
    ]);
    const failed = incidents.find((i: { kind: string }) => i.kind === 'needs-human');
    const one = json(await client.callTool({ name: 'get_incident', arguments: { incidentId: failed.incidentId } }));
    expect(one.runs[0].outcome).toMatch(/rolled-back/);
    expect(one.summary.evidence.join('\n')).toMatch(/UnauthorizedOperation|not authorized/);
    expect(one.summary.findings.map((f: { id: string }) => f.id)).toContain('iam.cni-policy');
    const d = json(await client.callTool({ name: 'diagnose', arguments: { cluster: 'prod-eu', node: NODE_DNS } }));
    expect(d.node.instanceId).toBe('i-0a1b2c3d4e5f60718');
    expect(d.findings.length).toBe(14);
    const filtered = json(
      await client.callTool({ name: 'list_incidents', arguments: { class: 'pid-exhaustion', limit: 5 } }),
    );
    expect(filtered.incidents).toHaveLength(1);
    // The agent asks for an action: the incident runs again, and its change waits for a human.
    const asked = json(
      await client.callTool(
        {
          name: 'request_action',
          arguments: {
            incidentId: filtered.incidents[0].incidentId,
            note: 'PIDs at 98%: please restart',
            approve: true,
          },
        },
        undefined,
        { timeout: 290_000 },
      ),
    );
    expect(asked.status).toBe('waiting-for-approval');
    expect(asked.detail).toMatch(/^(Request approval|Door: ask): the approvers were e-mailed the signed link/);
    // Asked to approve in the same call, and still nothing ran: the extra argument is not the tool's.
    expect(asked.detail).toMatch(/changes made: none$/);
    expect(asked.approval).toMatch(/^Only a human approves/);
  }, 600_000);

  it('diagnose of a cluster or node the account does not have is the tool’s error', async () => {
    const cluster = (await client.callTool({ name: 'diagnose', arguments: { cluster: 'prod-us' } })) as ToolText;
    expect(cluster.isError).toBe(true);
    expect(cluster.content[0].text).toBe(
      'ClusterNotFoundError: no EKS cluster named prod-us in eu-west-1 for these credentials',
    );
    const node = (await client.callTool({
      name: 'diagnose',
      arguments: { cluster: 'prod-eu', node: 'ip-10-9-9-9.eu-west-1.compute.internal' },
    })) as ToolText;
    expect(node.isError).toBe(true);
    expect(node.content[0].text).toMatch(/^NodeNotFoundError: no EC2 instance for node ip-10-9-9-9/);
  });

  it('the server’s stderr carries no AWS SDK Node-version banner (clients show it as an error)', () => {
    expect(stderr).not.toMatch(/NodeVersionSupportWarning|will require node/);
  });

  it('an agent has no way to approve or act: no such tool', async () => {
    const r = await client
      .callTool({ name: 'approve_action', arguments: { incidentId: 'x' } })
      .then((x) => (x as ToolText).content[0].text)
      .catch((e: Error) => e.message);
    expect(r).toMatch(/Tool approve_action not found/);
  });

  it('classifies lines and explains a class', async () => {
    const line =
      'E1129 10:00:00.000000    1234 pod_workers.go:1298] "Error syncing pod" err="failed to \\"CreatePodSandbox\\" for \\"web-1_default\\" with CreatePodSandboxError: \\"Failed to create sandbox for pod: rpc error: code = Unknown desc = failed to get sandbox image \\\\\\"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5\\\\\\": failed to pull image: 401 Unauthorized\\""';
    const { results } = json(await client.callTool({ name: 'classify_lines', arguments: { lines: [line, 'hello'] } }));
    expect(results.map((r: { class: string }) => r.class)).toEqual(['sandbox-image', 'unknown']);
    const c = json(await client.callTool({ name: 'explain_class', arguments: { class: 'cidr-fragmentation' } }));
    expect(c).toMatchObject({ class: 'cidr-fragmentation', incidentScope: 'subnet', defaultMode: 'observe' });
    expect(c.signatures.length).toBeGreaterThan(0);
  });

  it('a bad request is the tool’s error, and the session goes on', async () => {
    const r = (await client.callTool({
      name: 'get_incident',
      arguments: { incidentId: 'no-such-incident' },
    })) as ToolText;
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/^IncidentNotFoundError: no incident no-such-incident/);
    const bad = (await client.callTool({ name: 'get_incident', arguments: { incidentId: '../../etc' } })) as ToolText;
    expect(bad.isError).toBe(true);
    expect((await client.listTools()).tools).toHaveLength(6);
  });
});

describe('pod-doctor mcp against an account', () => {
  it('says what is missing instead of failing: no table, no credentials', async () => {
    const home = mkdtempSync(join(tmpdir(), 'pod-doctor-mcp-nocreds-'));
    const client = new Client({ name: 'pod-doctor-test', version: '1.0.0' });
    await client.connect(
      transport(['--region', 'eu-west-1'], {
        HOME: home,
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_CONFIG_FILE: join(home, 'none'),
        AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
      }),
    );
    try {
      const list = (await client.callTool({ name: 'list_incidents', arguments: {} })) as ToolText;
      expect(list.isError).toBe(true);
      expect(list.content[0].text).toContain('start pod-doctor mcp with --table and --bucket');
      const d = (await client.callTool({ name: 'diagnose', arguments: { cluster: 'prod-eu' } })) as ToolText;
      expect(d.isError).toBe(true);
      expect(d.content[0].text).toContain('pod-doctor mcp: no usable AWS credentials');
    } finally {
      await client.close();
    }
  }, 120_000);
});
