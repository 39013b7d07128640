/**
 * An incident's timeline from its run: first seen (the first line or event) → opened (the execution
 * starts) → diagnosed (Decide) → approval asked and given (Door: ask, and the state after it) →
 * action (the door's first change) → verified or summarized. Times come from the local runtime's
 * execution history (each state entered, wall clock); "first seen → opened" from the incident's own
 * clock (its firstSeen against the run's start).
 */

export interface TimelinePoint {
  readonly label: string;
  /** Milliseconds after the execution started (first seen is negative: before it). */
  readonly t: number;
}

export interface Timeline {
  readonly points: readonly TimelinePoint[];
  /** When the incident was first seen (ISO 8601), as its record says. */
  readonly firstSeen?: string;
}

/** The states that start an action of the door (a change, never the read-only probe). */
const ACTION_REQUESTS = ['Remedy: request', 'Act: request', 'Evict: request', 'Drain: request'];

/** The timeline of a run: its history (state, epoch ms), its start on the incident's clock and the firstSeen. */
export function timelineOf(run: {
  readonly history: readonly { state: string; at: number }[];
  readonly startedAt: number;
  readonly firstSeen?: string;
  readonly outcome: string;
}): Timeline {
  const h = run.history;
  if (h.length === 0) return { points: [] };
  const t0 = h[0].at;
  const at = (i: number) => h[i].at - t0;
  const first = (names: readonly string[]) => h.findIndex((e) => names.includes(e.state));
  const points: TimelinePoint[] = [];
  const seen = run.firstSeen ? Date.parse(run.firstSeen) : Number.NaN;
  if (!Number.isNaN(seen) && seen <= run.startedAt) points.push({ label: 'first seen', t: seen - run.startedAt });
  points.push({ label: 'opened', t: 0 });
  const decided = first(['Decide']);
  if (decided >= 0) points.push({ label: 'diagnosed', t: at(decided) });
  const asked = first(['Door: ask']);
  if (asked >= 0) {
    points.push({ label: 'approval asked', t: at(asked) });
    if (asked + 1 < h.length) points.push({ label: 'approval given', t: at(asked + 1) });
  }
  // The action: the door running the change (after its approval, when one was asked).
  const requested = first(ACTION_REQUESTS);
  const from = asked >= 0 ? asked + 1 : requested;
  const acted = requested < 0 ? -1 : h.findIndex((e, i) => i >= from && e.state === 'Door');
  if (acted >= 0) points.push({ label: 'action', t: at(acted) });
  const summarized = first(['Summarize']);
  const end = summarized >= 0 ? summarized : h.length - 1;
  points.push({ label: /\bverified\b/.test(run.outcome) ? 'verified' : 'summarized', t: at(end) });
  return { points: points.sort((a, b) => a.t - b.t), ...(run.firstSeen ? { firstSeen: run.firstSeen } : {}) };
}

/** A duration in words: 850 ms, 2.4 s, 5 min 3 s. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s ? `${m} min ${s} s` : `${m} min`;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The timeline as an inline SVG: a dot per point, a segment between consecutive points labelled with
 * its duration (equal widths: a 5-minute wait and a 40 ms step both stay readable).
 */
export function timelineSvg(t: Timeline): string {
  const n = t.points.length;
  if (n === 0) return '<p class="none">no execution: nothing to draw</p>';
  const step = 150;
  const width = Math.max(1, n - 1) * step + 120;
  const x = (i: number) => 60 + i * step;
  const segments = t.points.slice(1).map((p, i) => {
    const d = duration(p.t - t.points[i].t);
    return `<g class="segment" data-from="${esc(t.points[i].label)}" data-to="${esc(p.label)}" data-ms="${Math.round(p.t - t.points[i].t)}"><line x1="${x(i)}" y1="40" x2="${x(i + 1)}" y2="40" stroke="#57606a" stroke-width="3"/><text class="duration" x="${(x(i) + x(i + 1)) / 2}" y="30" text-anchor="middle">${esc(d)}</text></g>`;
  });
  const dots = t.points.map(
    (p, i) =>
      `<g class="point"><circle cx="${x(i)}" cy="40" r="6" fill="#0969da"/><text x="${x(i)}" y="62" text-anchor="middle">${esc(p.label)}</text><text class="time" x="${x(i)}" y="78" text-anchor="middle">${p.t < 0 ? '−' : '+'}${esc(duration(Math.abs(p.t)))}</text></g>`,
  );
  return `<svg class="timeline" role="img" aria-label="incident timeline" width="${width}" height="90" viewBox="0 0 ${width} 90" xmlns="http://www.w3.org/2000/svg" font-size="12" font-family="system-ui,sans-serif">${segments.join('')}${dots.join('')}</svg>`;
}
