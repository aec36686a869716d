// The status page: one server-rendered HTML document from a StatusView (a function of data only, so that another
// page can show a seller's view too), no script, no external resource, refreshed by a meta tag. Built for a seller
// glancing at a phone: one column, tables that become stacked rows on a narrow screen, long values wrapped.
// Everything shown is escaped; nothing on it is a credential (status-board.ts scrubs messages).
import { badge, esc, htmlDocument, money, offerName, searchForm, sellerName, table, time } from './page-html.ts';
import type { MatchView, ProblemView, RunView, SaleView, StatusView } from './status-board.ts';
import { headline, type Tone } from './status-headline.ts';
import { aboutDuration } from '../sync/plan/plan-cost.ts';

function duration(ms: number | null): string {
  if (ms === null) return '–';
  return ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`;
}

const OUTCOME_TONE: Readonly<Record<string, Tone>> = {
  converged: 'ok',
  partial: 'warn',
  planned: 'ok',
  running: 'info',
  aborted: 'bad',
  failed: 'bad',
  stopped: 'warn',
};

/**
 * What a run did, in words. Offers the marketplace owns are reported by every run that sees them ("sold"): that
 * is no change, and each sale is listed once under Recent sales.
 */
export function countsText(counts: Readonly<Record<string, number>>): string {
  const parts = Object.entries(counts)
    .filter(([k]) => !k.endsWith('.unchanged') && !k.endsWith('.sold'))
    .map(([k, n]) => `${n} ${k.replace('.', ' ')}`);
  return parts.length > 0 ? parts.join(', ') : 'no change';
}

function runsTable(runs: readonly RunView[], now: number): string {
  if (runs.length === 0) return '<p class="muted">No run yet.</p>';
  return table(
    ['when', 'why', 'outcome', 'requests', 'took', 'what changed'],
    runs.map((r) => [
      time(r.startedAt, now),
      esc(r.why),
      badge(r.outcome, OUTCOME_TONE[r.outcome] ?? 'info'),
      r.requests === null ? '–' : String(r.requests),
      duration(r.durationMs),
      esc(countsText(r.counts)),
    ]),
    [3, 4],
  );
}

function problemItem(p: ProblemView, now: number): string {
  const state =
    p.state === 'backoff'
      ? `${badge('held back', 'warn')} ${
          p.nextAttemptAt === null || p.nextAttemptAt === undefined
            ? 'until its entry changes'
            : `sent again ${time(p.nextAttemptAt, now)}`
        }`
      : badge(p.state, 'bad');
  return (
    `<li><div>${offerName(p.kind, p.externalId, p.title)} ${state}</div>` +
    `<div>${esc(p.message)}</div>` +
    (p.where ? `<div class="where">${esc(p.where)}</div>` : '') +
    '</li>'
  );
}

function more(shown: number, total: number, what: string): string {
  return total > shown ? `<p class="muted">and ${total - shown} more: ${what}</p>` : '';
}

function saleItem(s: SaleView, now: number): string {
  const when = s.at === null ? '' : `${s.atSource === 'seen' ? 'seen' : s.status} ${time(s.at, now)}`;
  const units = s.quantity !== undefined ? `${s.quantity} sold` : s.status;
  const price =
    s.price === null
      ? ''
      : s.quantity !== undefined
        ? ` · ${s.quantity} × ${esc(money(s.price, s.currency))}`
        : ` · ${esc(money(s.price, s.currency))}`;
  return (
    `<li><div>${offerName(s.kind, s.externalId, s.title)} ${badge(units, s.status === 'sold' ? 'ok' : 'warn')}</div>` +
    `<div class="muted">${when}${price}</div></li>`
  );
}

function matchLine(m: MatchView | null): string {
  if (!m) return '';
  const locked = m.locked > 0 ? `; ${m.locked} sold, refunded or processing (the marketplace owns them)` : '';
  return `<p><b>${m.matching} of ${m.total}</b> offers in the catalogue match the marketplace${locked}.</p>`;
}

/** "A run is going on now: 1,180 writes left, about 59 s". */
function runningLine(v: StatusView): string {
  const w = v.daemon.work;
  if (!w) return 'A run is going on now';
  const writes = `${w.left.toLocaleString('en-US')} write${w.left === 1 ? '' : 's'}`;
  return `A run is going on now: ${writes} left, ${aboutDuration(w.seconds)}`;
}

function nextRun(v: StatusView, now: number): string {
  const s = v.daemon.schedule;
  if (!s || (s.nextTick === null && s.nextSweep === null))
    return v.daemon.running ? `<p>${esc(runningLine(v))}.</p>` : '';
  // During a run the schedule still says when the full sweep comes: a seller reading the page mid-run sees both.
  const parts = [
    ...(v.daemon.running ? [esc(runningLine(v))] : []),
    ...(!v.daemon.running && s.nextTick !== null ? [`Next run ${time(s.nextTick, now)}`] : []),
    ...(s.nextSweep !== null ? [`full sweep ${time(s.nextSweep, now)}`] : []),
  ];
  return `<p>${parts.join(' · ')}; at once when a catalogue file changes.</p>`;
}

/** The whole page, refreshing itself. */
export function renderStatusPage(v: StatusView): string {
  return htmlDocument(`${sellerName(v.seller)} · offersync`, statusPageBody(v), v.refreshSeconds);
}

/** The page's body alone, for a page that shows a seller's status inside its own document (htmlDocument). */
export function statusPageBody(v: StatusView): string {
  const now = v.generatedAt;
  const d = v.daemon;
  const h = headline(v);
  const name = sellerName(v.seller);
  const offers =
    v.offers.length === 0
      ? '<p class="muted">No offer synced yet.</p>'
      : table(
          ['kind', 'on the marketplace'],
          v.offers.map((o) => [
            esc(o.kind),
            esc(
              Object.entries(o.byStatus)
                .map(([st, n]) => `${n} ${st}`)
                .join(', '),
            ),
          ]),
        );
  const t = v.trouble;
  const problems =
    v.problems.length === 0
      ? '<p class="muted">None.</p>'
      : `<ul class="list">${v.problems.map((p) => problemItem(p, now)).join('')}</ul>` +
        more(v.problems.length, t.failed + t.held, 'run offersync status');
  const catalogue =
    v.catalogueErrors.length === 0
      ? '<p class="muted">None.</p>'
      : `<ul class="list">${v.catalogueErrors
          .map(
            (e) =>
              `<li><div class="where">${esc(e.where)}</div>` +
              (e.externalId !== undefined
                ? `<div>${e.kind ? offerName(e.kind, e.externalId) : `<b>${esc(e.externalId)}</b>`}</div>`
                : '') +
              `<div>${esc(e.message)}</div></li>`,
          )
          .join('')}</ul>${more(v.catalogueErrors.length, t.invalid, 'run offersync validate')}`;
  const sales =
    v.sales.length === 0
      ? '<p class="muted">No sale yet.</p>'
      : `<ul class="list">${v.sales.map((s) => saleItem(s, now)).join('')}</ul>`;
  const q = v.queue;
  const queue = q
    ? `<p>${Math.round(q.currentRate * 10) / 10} requests/s in use; ${q.size} waiting, ${q.pending} on the wire${
        q.isPaused && q.pausedUntil ? `; paused by the marketplace's rate limit until ${time(q.pausedUntil, now)}` : ''
      }.</p>`
    : '<p class="muted">Not known.</p>';
  const waiting = d.waiting ? `<p>${esc(d.waiting)}</p>` : '';
  const lastError = d.lastError ? `<p>${badge('error', 'bad')} ${esc(d.lastError)}</p>` : '';
  const guardStop = d.guardStop
    ? [`A guard stopped the run of ${d.guardStop.at}: nothing was sent.`, ...d.guardStop.messages]
    : [];
  const notices = [...(d.notices ?? []), ...guardStop]
    .map((n) => `<section class="notice" role="alert"><p>${badge('warning', 'bad')} ${esc(n)}</p></section>`)
    .join('');
  const id =
    v.seller.name !== null && v.seller.id !== 'default' ? ` <span class="muted">(${esc(v.seller.id)})</span>` : '';
  return `<h1>${esc(name)}${id}</h1>
<p class="b headline ${h.tone}" role="status">${esc(h.text)}</p>
${matchLine(v.match)}${nextRun(v, now)}
<p class="muted">offersync · updated ${time(now, now)} · refreshes every ${v.refreshSeconds} s · read only</p>
${notices}${waiting}${lastError}
${searchForm()}
<section><h2>Failed or held back (${t.failed + t.held})</h2>${problems}</section>
<section><h2>Invalid offers in the catalogue (${t.invalid})</h2>${catalogue}</section>
<section><h2>Recent sales</h2>${sales}</section>
<section><h2>Offers</h2>${offers}</section>
<section><h2>Last runs</h2>${runsTable(v.runs, now)}</section>
<section><h2>Rate and queue</h2>${queue}</section>`;
}
