// The pieces every page of the daemon is built from: escaping, times, badges, tables that turn into stacked rows
// on a phone, the search form, and the document around a page's body. No script, nothing loaded from elsewhere.
import type { SellerView } from './status-board.ts';
import type { Tone } from './status-headline.ts';

/** Text and attribute values: every character that could open markup or close an attribute. */
export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** "3 min ago", "in 2 h", "now": enough to read at a glance; the exact time is in the title attribute. */
export function ago(ms: number, now: number): string {
  const d = Math.round((now - ms) / 1000);
  const a = Math.abs(d);
  if (a === 0) return 'now';
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

export function time(ms: number, now: number): string {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${iso}" title="${iso}">${ago(ms, now)}</time>`;
}

export function badge(text: string, tone: Tone): string {
  return `<span class="b ${tone}">${esc(text)}</span>`;
}

/** Cents as the seller wrote them: "24.99", with the currency when the marketplace gave one. */
export function money(cents: number, currency: string | null): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const text = `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  return currency ? `${text} ${currency}` : text;
}

/** The address of an offer's page. */
export function offerHref(kind: string, externalId: string): string {
  return `/offers/${encodeURIComponent(kind)}/${encodeURIComponent(externalId)}`;
}

/** "item <b>gold-1</b> · Gold 1000", linked to the offer's page. */
export function offerName(kind: string, externalId: string, title?: string | null): string {
  const named = title ? ` · ${esc(title)}` : '';
  return `<a href="${esc(offerHref(kind, externalId))}">${esc(kind)} <b>${esc(externalId)}</b>${named}</a>`;
}

/**
 * A table whose rows stack on a narrow screen: each cell then reads "label value" on its own line, so nothing is
 * wider than the phone. `rows`: each cell's HTML, in the order of `headers`.
 */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: readonly number[] = [],
) {
  const head = headers.map((h, i) => `<th${numeric.includes(i) ? ' class="n"' : ''}>${esc(h)}</th>`).join('');
  const body = rows
    .map(
      (cells) =>
        `<tr>${cells
          .map(
            (c, i) => `<td data-label="${esc(headers[i] ?? '')}"${numeric.includes(i) ? ' class="n"' : ''}>${c}</td>`,
          )
          .join('')}</tr>`,
    )
    .join('');
  return `<table class="stack"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** The search form: a plain GET to /offers, so it works without script. */
export function searchForm(query = ''): string {
  return (
    '<form class="search" method="get" action="/offers" role="search">' +
    '<label for="q">Find an offer</label>' +
    `<input id="q" name="q" type="search" value="${esc(query)}" placeholder="external_id or title" maxlength="200">` +
    '<button type="submit">Find</button></form>'
  );
}

/** Who the pages are about: the shop's name when configured, else its seller id. */
export function sellerName(s: SellerView): string {
  return s.name ?? (s.id === 'default' ? 'your shop' : s.id);
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6470;--bg:#fff;--card:#f5f6f8;--line:#d8dce2;--link:#1a4fb0}
@media (prefers-color-scheme:dark){
:root{--fg:#e8eaed;--muted:#9aa3ad;--bg:#15181c;--card:#1f2328;--line:#343a41;--link:#8ab4ff}
}
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:60rem;margin:0 auto;padding:1rem}
a{color:var(--link)}
h1{font-size:1.3rem;margin:.2rem 0 .3rem;overflow-wrap:anywhere}h2{font-size:1.05rem;margin:1.4rem 0 .5rem}
section{background:var(--card);border-radius:.6rem;padding:.4rem .9rem .8rem;margin:.8rem 0}
.muted{color:var(--muted)}.n{text-align:right}
p,li,td,dd{overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);white-space:nowrap}
@media (max-width:40rem){
table.stack thead{display:none}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack tr{border-bottom:1px solid var(--line);padding:.35rem 0}
table.stack td{border:0;padding:.05rem 0;text-align:left}
table.stack td::before{content:attr(data-label);display:inline-block;min-width:7.5rem;margin-right:.6rem;
color:var(--muted);font-weight:600}
}
.b{display:inline-block;border-radius:1rem;padding:0 .55rem;font-size:.85rem;font-weight:600}
.headline{font-size:1rem;padding:.15rem .7rem;margin:.2rem 0}
.ok{background:#d7f5dd;color:#0d5b1e}.warn{background:#fff0c2;color:#6b4d00}.bad{background:#ffdcdc;color:#8a1111}
.info{background:#dde8ff;color:#173d8a}
.notice{border:2px solid #c62828}
.list{list-style:none;margin:0;padding:0}.list>li{padding:.5rem 0;border-bottom:1px solid var(--line)}
.list>li:last-child{border-bottom:0}
.where{font-family:ui-monospace,Menlo,monospace;font-size:.85rem;color:var(--muted);overflow-wrap:anywhere}
.search{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:.6rem 0}
.search label{width:100%;font-weight:600}
.search input{flex:1 1 12rem;min-width:0;font:inherit;padding:.35rem .5rem;border:1px solid var(--line);
border-radius:.4rem}
.search button{font:inherit;padding:.35rem .9rem;border-radius:.4rem;border:1px solid var(--line)}
dl.fields{display:grid;grid-template-columns:minmax(6rem,max-content) 1fr;gap:.2rem .8rem;margin:0}
dl.fields dt{color:var(--muted);font-weight:600}dl.fields dd{margin:0}
@media (max-width:40rem){dl.fields{grid-template-columns:1fr;gap:0}dl.fields dd{margin-bottom:.35rem}}
`;

/** The whole document: `refreshSeconds` adds a meta refresh (the status page); other pages stay as loaded. */
export function htmlDocument(title: string, body: string, refreshSeconds?: number): string {
  const refresh = refreshSeconds ? `\n<meta http-equiv="refresh" content="${refreshSeconds}">` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
