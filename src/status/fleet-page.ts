// The fleet page: every seller the replicas serve on one server-rendered HTML page, no script, nothing loaded,
// refreshed by a meta tag. Each seller links to its own page (/sellers/ID), the single daemon's status page
// (status-page.ts). On a narrow screen each seller's row stacks into a card. Everything shown is escaped.
import type { FleetHolder, FleetSellerView, FleetView } from './fleet-board.ts';
import { ago, esc } from './page-html.ts';

/** The path of a seller's page on the health server. */
export function sellerPagePath(seller: string): string {
  return `/sellers/${encodeURIComponent(seller)}`;
}

const OUTCOME_CLASS: Readonly<Record<string, string>> = {
  converged: 'ok',
  partial: 'warn',
  running: 'info',
  aborted: 'bad',
  failed: 'bad',
  stopped: 'warn',
};

function badge(text: string, cls: string): string {
  return `<span class="b ${cls}">${esc(text)}</span>`;
}

/** The first part of a replica's id: enough to tell replicas apart at a glance; the whole one is its title. */
function holderText(h: FleetHolder, here: boolean): string {
  const short = h.replica.slice(0, 8);
  const who = `<span title="${esc(h.replica)}">${esc(short)}</span> <span class="muted">${esc(h.host)}</span>`;
  return here ? `${badge('this replica', 'info')} ${who}` : who;
}

function row(s: FleetSellerView, now: number): string {
  const held = s.heldBy ? holderText(s.heldBy, s.here) : badge('nobody', 'warn');
  const error = s.error ? `<div class="msg">${badge('cannot start', 'bad')} ${esc(s.error)}</div>` : '';
  const unreadable = s.unreadable
    ? `<div class="msg">${badge('state unreadable', 'bad')} ${esc(s.unreadable)}</div>`
    : '';
  const run = s.lastRun
    ? `${badge(s.lastRun.outcome, OUTCOME_CLASS[s.lastRun.outcome] ?? 'info')} ` +
      `<time datetime="${new Date(s.lastRun.at).toISOString()}" title="${new Date(s.lastRun.at).toISOString()}">` +
      `${ago(s.lastRun.at, now)}</time>`
    : '<span class="muted">no run yet</span>';
  const count = (n: number, cls: string) => (n > 0 ? badge(String(n), cls) : '<span class="muted">0</span>');
  return (
    '<tr>' +
    `<td data-label="seller"><a href="${esc(sellerPagePath(s.seller))}"><b>${esc(s.seller)}</b></a>` +
    `${error}${unreadable}</td>` +
    `<td data-label="held by">${held}</td>` +
    `<td data-label="last run">${run}</td>` +
    `<td data-label="held back" class="n">${count(s.heldOffers, 'warn')}</td>` +
    `<td data-label="failed" class="n">${count(s.failedOffers, 'bad')}</td>` +
    `<td data-label="sales today" class="n">${count(s.salesToday, 'ok')}</td>` +
    '</tr>'
  );
}

export function renderFleetPage(v: FleetView): string {
  const now = v.generatedAt;
  const nobody = v.sellers.filter((s) => s.heldBy === null).length;
  const failing = v.sellers.filter(
    (s) => s.error !== null || (s.lastRun && s.lastRun.outcome !== 'converged' && s.lastRun.outcome !== 'running'),
  ).length;
  const summary =
    v.sellers.length === 0
      ? badge('no seller', 'warn')
      : failing > 0
        ? badge(`${failing} of ${v.sellers.length} need a look`, 'warn')
        : nobody > 0
          ? badge(`${nobody} not held`, 'warn')
          : badge('all held', 'ok');
  const body =
    v.sellers.length === 0
      ? '<p class="muted">No seller yet. Add one with ' +
        '<code>offersync sellers add ID --catalogue DIR --api-key-file FILE</code>.</p>'
      : '<table><thead><tr><th>seller</th><th>held by</th><th>last run</th><th class="n">held back</th>' +
        `<th class="n">failed</th><th class="n">sales today</th></tr></thead><tbody>${v.sellers
          .map((s) => row(s, now))
          .join('')}</tbody></table>`;
  const trouble = v.trouble
    ? `<section class="notice" role="alert"><p>${badge('warning', 'bad')} ${esc(v.trouble)}</p></section>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${v.refreshSeconds}">
<title>offersync · fleet</title>
<style>
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6470;--bg:#fff;--card:#f5f6f8;--line:#d8dce2;--link:#0b57d0}
@media (prefers-color-scheme:dark){
:root{--fg:#e8eaed;--muted:#9aa3ad;--bg:#15181c;--card:#1f2328;--line:#343a41;--link:#8ab4f8}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:64rem;margin:0 auto;padding:1rem}
h1{font-size:1.3rem;margin:.2rem 0 .3rem}
a{color:var(--link)}
section{background:var(--card);border-radius:.6rem;padding:.4rem .9rem .8rem;margin:.8rem 0}
.muted{color:var(--muted)}.n{text-align:right;white-space:nowrap}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);white-space:nowrap}
td{overflow-wrap:anywhere}
.b{display:inline-block;border-radius:1rem;padding:0 .55rem;font-size:.85rem;font-weight:600;white-space:nowrap}
.ok{background:#d7f5dd;color:#0d5b1e}.warn{background:#fff0c2;color:#6b4d00}.bad{background:#ffdcdc;color:#8a1111}
.info{background:#dde8ff;color:#173d8a}
.notice{border:2px solid #c62828}
.msg{font-size:.9rem;margin-top:.2rem}
@media (max-width:40rem){
thead{display:none}
table,tbody,tr,td{display:block;width:100%}
tr{border-bottom:1px solid var(--line);padding:.4rem 0}
td{border:0;padding:.15rem 0;text-align:left}
td.n{text-align:left}
td[data-label]:not(:first-child)::before{content:attr(data-label) ": ";color:var(--muted)}
}
</style>
</head>
<body>
<main>
<h1>offersync · fleet ${summary}</h1>
<p class="muted">${v.sellers.length} seller(s) · ${v.liveReplicas} replica(s) live · this page from replica
<span title="${esc(v.replica)}">${esc(v.replica.slice(0, 8))}</span> · refreshes every ${v.refreshSeconds} s ·
read only</p>
${trouble}
<section>${body}</section>
</main>
</body>
</html>
`;
}
