/**
 * The demo's incident page (`pod-doctor demo --html FILE`): one self-contained HTML file, no script,
 * no external resource. A headline with counts; per incident its outcome, the checks (FAIL, WARN and
 * ERROR first, PASS folded), real links (the console in the incident's Region), the chat card, the
 * pagers' bodies, the Kubernetes events written back, and the timeline drawn as an inline SVG.
 */
import { headline, outcomeKind } from './progress.js';
import type { ScenarioResult } from './run.js';
import { timelineSvg } from './timeline.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Status order on the page: what failed first. */
const ORDER: Readonly<Record<string, number>> = { fail: 0, error: 1, warn: 2, pass: 3 };

const badge = (status: string) =>
  `<span class="badge ${esc(status.toLowerCase())}">${esc(status.toUpperCase())}</span>`;

/** https links named in the summary (the console execution link, in the Region the incident is in). */
function linksOf(message: string): { label: string; url: string }[] {
  return [...message.matchAll(/^([A-Za-z ]{2,30}):\s+(https:\/\/\S+)$/gm)].map((m) => ({ label: m[1], url: m[2] }));
}

function checks(r: ScenarioResult): string {
  const sorted = [...r.findings].sort((a, b) => (ORDER[a.status] ?? 9) - (ORDER[b.status] ?? 9));
  const row = (f: (typeof sorted)[number]) =>
    `<tr class="check ${esc(f.status)}"><td>${badge(f.status)}</td><td><code>${esc(f.id)}</code></td><td>${esc(f.summary)}</td></tr>`;
  const open = sorted.filter((f) => f.status !== 'pass');
  const passed = sorted.filter((f) => f.status === 'pass');
  return `<table class="checks">${open.map(row).join('')}</table>${
    passed.length
      ? `<details class="passed"><summary>${passed.length} check(s) passed</summary><table class="checks">${passed.map(row).join('')}</table></details>`
      : ''
  }`;
}

function notices(r: ScenarioResult): string {
  if (r.notices.length === 0) return '';
  return r.notices
    .map((n) => {
      const card = n.chat.content;
      const pages = n.paging
        ? `<details><summary>pager bodies (${esc(n.paging.action)})</summary><pre class="pager">${esc(
            JSON.stringify({ pagerduty: n.paging.pagerduty, opsgenie: n.paging.opsgenie }, null, 2),
          )}</pre></details>`
        : '<p class="quiet">no page (informational)</p>';
      return `<div class="card ${esc(n.notice.kind)}"><h4>Chat card · ${esc(n.notice.kind)}</h4><p class="title">${esc(card.title)}</p><pre>${esc(card.description)}</pre>${
        card.nextSteps.length ? `<ul>${card.nextSteps.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>` : ''
      }${pages}</div>`;
    })
    .join('');
}

function events(r: ScenarioResult): string {
  if (r.clusterEvents.length === 0) return '<p class="quiet">no Kubernetes event written</p>';
  return `<table class="events"><tr><th>type</th><th>reason</th><th>regarding</th><th>note</th></tr>${r.clusterEvents
    .map(
      (e) =>
        `<tr><td>${esc(e.type)}</td><td>${esc(e.reason)}</td><td>${esc(e.regarding)}</td><td>${esc(e.note)}</td></tr>`,
    )
    .join('')}</table>`;
}

function section(r: ScenarioResult): string {
  const kind = outcomeKind(r.outcome);
  const links = linksOf(r.summary.message);
  return `<section id="${esc(r.scenario)}"><h2>${esc(r.scenario)} <span class="outcome ${esc(kind.replace(/ /g, '-'))}">${esc(kind)}</span></h2>
<p>${esc(r.title)} · class <code>${esc(r.class)}</code> · node: ${esc(r.node)}</p>
<p class="result"><b>Outcome:</b> ${esc(r.outcome)}</p>
<h3>Timeline</h3>${timelineSvg(r.timeline)}
<h3>Checks</h3>${checks(r)}
<h3>Actions</h3>${r.actions.length ? `<ul>${r.actions.map((a) => `<li><code>${esc(a.id)}</code>: ${esc(a.status)}</li>`).join('')}</ul>` : '<p class="quiet">none</p>'}
${links.length ? `<h3>Links</h3><ul>${links.map((l) => `<li><a href="${esc(l.url)}">${esc(l.label)}</a></li>`).join('')}</ul>` : ''}
<h3>Chat and pagers</h3>${notices(r)}
<h3>Kubernetes events written back</h3>${events(r)}
<details><summary>The e-mail</summary><pre class="mail"><b>${esc(r.summary.subject)}</b>\n\n${esc(r.summary.message)}</pre></details></section>`;
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2em;max-width:1200px;color:#1f2328}
h1{margin-bottom:.2em}.headline{font-size:1.25em;font-weight:600}pre{background:#f6f8fa;padding:1em;overflow:auto;white-space:pre-wrap}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
.badge{display:inline-block;min-width:3.5em;text-align:center;border-radius:4px;padding:0 6px;font-weight:600;color:#fff}
.badge.fail{background:rgb(207,34,46)}.badge.error{background:rgb(130,7,30)}.badge.warn{background:rgb(154,103,0)}.badge.pass{background:rgb(26,127,55)}
.outcome{font-size:.7em;border-radius:4px;padding:2px 6px;color:#fff;background:#57606a}.outcome.repaired-and-verified,.outcome.remedied{background:rgb(26,127,55)}
.outcome.rolled-back{background:rgb(207,34,46)}.outcome.diagnosed{background:rgb(9,105,218)}
section{border-top:2px solid #d0d7de;margin-top:2em}.quiet{color:#57606a}.card{border-left:4px solid #0969da;padding-left:1em;margin:1em 0}
.card.needs-human{border-color:rgb(207,34,46)}.card.verified{border-color:rgb(26,127,55)}svg.timeline text.duration{fill:#57606a}`;

/** The incident page of a demo run. */
export function renderHtml(results: readonly ScenarioResult[]): string {
  const rows = results
    .map((r) => {
      const kind = outcomeKind(r.outcome);
      return `<tr><td><a href="#${esc(r.scenario)}">${esc(r.scenario)}</a></td><td><code>${esc(r.class)}</code></td><td>${esc(r.rootCause)}</td><td><span class="outcome ${esc(kind.replace(/ /g, '-'))}">${esc(kind)}</span> ${esc(r.outcome)}</td><td>${(r.ms / 1000).toFixed(1)} s</td></tr>`;
    })
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pod-doctor demo</title><style>${STYLE}</style></head><body>
<h1>pod-doctor demo</h1><p class="headline" id="headline">${esc(headline(results))}</p>
<table class="summary"><tr><th>scenario</th><th>class</th><th>cause</th><th>outcome</th><th>time</th></tr>
${rows}
</table>${results.map(section).join('\n')}</body></html>`;
}
