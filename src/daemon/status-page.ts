// The status page: one server-rendered HTML document, no script, no external resource, refreshed by a meta tag.
// Built for a seller glancing at a phone: one column, tables that scroll sideways inside their box, large type.
// Everything shown is escaped; nothing on it is a credential (status-board.ts scrubs messages).
import type { ProblemView, RunView, StatusView } from './status-board.ts';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** "3 min ago", "in 2 h": enough to read at a glance; the exact time is in the title attribute. */
function ago(ms: number, now: number): string {
  const d = Math.round((now - ms) / 1000);
  const a = Math.abs(d);
  const t =
    a < 90
      ? `${a} s`
      : a < 5400
        ? `${Math.round(a / 60)} min`
        : a < 129_600
          ? `${Math.round(a / 3600)} h`
          : `${Math.round(a / 86_400)} d`;
  return d >= 0 ? `${t} ago` : `in ${t}`;
}

function time(ms: number, now: number): string {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${iso}" title="${iso}">${ago(ms, now)}</time>`;
}

function duration(ms: number | null): string {
  if (ms === null) return '–';
  return ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`;
}

const OUTCOME_CLASS: Readonly<Record<string, string>> = {
  converged: 'ok',
  partial: 'warn',
  planned: 'ok',
  running: 'info',
  aborted: 'bad',
  failed: 'bad',
  stopped: 'warn',
};

function badge(text: string, cls: string): string {
  return `<span class="b ${cls}">${esc(text)}</span>`;
}

function countsText(counts: Readonly<Record<string, number>>): string {
  const parts = Object.entries(counts)
    .filter(([k]) => !k.endsWith('.unchanged'))
    .map(([k, n]) => `${n} ${k.replace('.', ' ')}`);
  return parts.length > 0 ? parts.join(', ') : 'no change';
}

function runsTable(runs: readonly RunView[], now: number): string {
  if (runs.length === 0) return '<p class="muted">No run yet.</p>';
  const rows = runs
    .map(
      (r) =>
        `<tr><td>${time(r.startedAt, now)}</td><td>${esc(r.why)}</td>` +
        `<td>${badge(r.outcome, OUTCOME_CLASS[r.outcome] ?? 'info')}</td>` +
        `<td class="n">${r.requests ?? '–'}</td><td class="n">${duration(r.durationMs)}</td>` +
        `<td>${esc(countsText(r.counts))}</td></tr>`,
    )
    .join('');
  return table(['when', 'why', 'outcome', 'requests', 'took', 'what changed'], rows);
}

function table(headers: readonly string[], rows: string): string {
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  return `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** "item <b>gold-1</b> · Gold 1000" and what follows it. */
function offerLine(kind: string, externalId: string, title: string | undefined, after: string): string {
  const named = title ? ` · ${esc(title)}` : '';
  return `<div class="id">${esc(kind)} <b>${esc(externalId)}</b>${named} ${after}</div>`;
}

function problemItem(p: ProblemView, now: number): string {
  const state =
    p.state === 'backoff'
      ? `${badge('backoff', 'warn')} ${
          p.nextAttemptAt === null || p.nextAttemptAt === undefined
            ? 'held until its entry changes'
            : `sent again ${time(p.nextAttemptAt, now)}`
        }`
      : badge(p.state, 'bad');
  return (
    `<li>${offerLine(p.kind, p.externalId, p.title, state)}` +
    `<div class="msg">${esc(p.message)}</div>` +
    (p.where ? `<div class="where">${esc(p.where)}</div>` : '') +
    '</li>'
  );
}

function more(n: number): string {
  return n > 0 ? `<p class="muted">and ${n} more: run offersync validate</p>` : '';
}

export function renderStatusPage(v: StatusView): string {
  const now = v.generatedAt;
  const d = v.daemon;
  const health = d.waiting
    ? badge('waiting', 'warn')
    : d.lastError
      ? badge('last run failed', 'bad')
      : d.lastOutcome === 'converged'
        ? badge('in sync', 'ok')
        : d.lastOutcome === 'partial'
          ? badge('some offers failed', 'warn')
          : d.lastOutcome
            ? badge(d.lastOutcome, OUTCOME_CLASS[d.lastOutcome] ?? 'info')
            : badge('starting', 'info');
  const offers =
    v.offers.length === 0
      ? '<p class="muted">No offer synced yet.</p>'
      : table(
          ['kind', 'by status on the marketplace'],
          v.offers
            .map((o) => {
              const byStatus = Object.entries(o.byStatus)
                .map(([st, n]) => `${n} ${esc(st)}`)
                .join(', ');
              return `<tr><td>${esc(o.kind)}</td><td>${byStatus}</td></tr>`;
            })
            .join(''),
        );
  const problems =
    v.problems.length === 0
      ? '<p class="muted">None.</p>'
      : `<ul class="list">${v.problems.map((p) => problemItem(p, now)).join('')}</ul>`;
  const catalogue =
    v.catalogueErrorCount === 0
      ? '<p class="muted">None.</p>'
      : `<ul class="list">${v.catalogueErrors
          .map(
            (e) =>
              `<li><div class="where">${esc(e.where)}</div>` +
              (e.externalId !== undefined ? `<div class="id"><b>${esc(e.externalId)}</b></div>` : '') +
              `<div class="msg">${esc(e.message)}</div></li>`,
          )
          .join('')}</ul>${more(v.catalogueErrorCount - v.catalogueErrors.length)}`;
  const sales =
    v.sales.length === 0
      ? '<p class="muted">No sale yet.</p>'
      : `<ul class="list">${v.sales
          .map((s) => {
            const at = Date.parse(s.at);
            const when = Number.isFinite(at) ? time(at, now) : esc(s.at);
            const label = s.quantity !== undefined ? `${s.quantity} sold` : s.status;
            const status = badge(label, s.status === 'sold' ? 'ok' : 'warn');
            return `<li>${offerLine(s.kind, s.externalId, s.title, status)}<div class="where">${when}</div></li>`;
          })
          .join('')}</ul>`;
  const q = v.queue;
  const queue = q
    ? `<p>${Math.round(q.currentRate * 10) / 10} requests/s in use; ${q.size} waiting, ${q.pending} on the wire${
        q.isPaused && q.pausedUntil ? `; paused by the marketplace's rate limit until ${time(q.pausedUntil, now)}` : ''
      }.</p>`
    : '<p class="muted">Not known.</p>';
  const running = d.running ? ' · a run is going on' : '';
  const waiting = d.waiting ? `<p>${esc(d.waiting)}</p>` : '';
  const lastError = d.lastError ? `<p>${badge('error', 'bad')} ${esc(d.lastError)}</p>` : '';
  const guardStop = d.guardStop
    ? [`A guard stopped the run of ${d.guardStop.at}: nothing was sent.`, ...d.guardStop.messages]
    : [];
  const notices = [...(d.notices ?? []), ...guardStop]
    .map((n) => `<section class="notice" role="alert"><p>${badge('warning', 'bad')} ${esc(n)}</p></section>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${v.refreshSeconds}">
<title>offersync · ${esc(v.seller)}</title>
<style>
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6470;--bg:#fff;--card:#f5f6f8;--line:#d8dce2}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaed;--muted:#9aa3ad;--bg:#15181c;--card:#1f2328;--line:#343a41}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.3rem;margin:.2rem 0 .3rem}h2{font-size:1.05rem;margin:1.4rem 0 .5rem}
section{background:var(--card);border-radius:.6rem;padding:.4rem .9rem .8rem;margin:.8rem 0}
.muted{color:var(--muted)}.n{text-align:right;white-space:nowrap}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);white-space:nowrap}
td:first-child{white-space:nowrap}
.b{display:inline-block;border-radius:1rem;padding:0 .55rem;font-size:.85rem;font-weight:600;white-space:nowrap}
.ok{background:#d7f5dd;color:#0d5b1e}.warn{background:#fff0c2;color:#6b4d00}.bad{background:#ffdcdc;color:#8a1111}
.info{background:#dde8ff;color:#173d8a}
.notice{border:2px solid #c62828}
.list{list-style:none;margin:0;padding:0}.list li{padding:.5rem 0;border-bottom:1px solid var(--line)}
.list li:last-child{border-bottom:0}
.msg{overflow-wrap:anywhere}
.where{font-family:ui-monospace,Menlo,monospace;font-size:.85rem;color:var(--muted);overflow-wrap:anywhere}
</style>
</head>
<body>
<main>
<h1>offersync · ${esc(v.seller)} ${health}</h1>
<p class="muted">Updated ${time(now, now)} · refreshes every ${v.refreshSeconds} s · read only${running}</p>
${notices}${waiting}${lastError}
<section><h2>Offers</h2>${offers}</section>
<section><h2>Failed or held back (${v.problems.length})</h2>${problems}</section>
<section><h2>Catalogue errors (${v.catalogueErrorCount})</h2>${catalogue}</section>
<section><h2>Recent sales</h2>${sales}</section>
<section><h2>Last runs</h2>${runsTable(v.runs, now)}</section>
<section><h2>Rate and queue</h2>${queue}</section>
</main>
</body>
</html>
`;
}
