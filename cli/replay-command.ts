import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { ParsedArgs } from './args.js';

/** Turns a file's content into the events the ingest Lambda would receive. */
export function eventsFromFile(text: string): unknown[] {
  const t = text.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const v = JSON.parse(t) as unknown;
      const list = Array.isArray(v) ? v : [v];
      return list.map((e) => {
        const o = e as Record<string, unknown>;
        // A decoded subscription batch: re-encode it as CloudWatch Logs delivers it.
        if (o && typeof o === 'object' && Array.isArray(o.logEvents))
          return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(o))).toString('base64') } };
        return e;
      });
    } catch {
      // Not one JSON document: JSON lines (Container Insights records, ipamd) are log lines.
    }
  }
  const lines = text.split('\n').filter((l) => l.trim().length > 0);
  const batch = {
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: '/aws/containerinsights/prod-eu/dataplane',
    logStream: 'replay',
    subscriptionFilters: ['replay'],
    logEvents: lines.map((message, i) => ({
      id: String(i),
      timestamp: Date.parse('2026-11-29T10:00:00Z') + i * 1000,
      message,
    })),
  };
  return [{ awslogs: { data: gzipSync(Buffer.from(JSON.stringify(batch))).toString('base64') } }];
}

/** `pod-doctor replay FILE` on parsed arguments (cli/commands.ts holds its help). */
export async function runReplayCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const file = positionals[0];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    process.stderr.write(`pod-doctor replay: cannot read ${file}: ${(e as Error).message}\n`);
    return 1;
  }
  const { replay } = await import('../demo/run.js');
  const results = await replay(eventsFromFile(text));
  if (results.length === 0) {
    process.stdout.write(
      values.json ? '' : 'no incident: nothing in the input is a pod start failure pod-doctor knows\n',
    );
    return 0;
  }
  for (const r of results) {
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ class: r.class, incident: r.incident, findings: r.findings.map((f) => ({ id: f.id, status: f.status })), actions: r.actions, outcome: r.outcome })}\n`,
      );
    } else {
      process.stdout.write(
        `━━━ ${r.class} (${r.count} event(s) → 1 incident)\nSubject: ${r.summary.subject}\n\n${r.summary.message}\n\n`,
      );
    }
  }
  return 0;
}
