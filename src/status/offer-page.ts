// One offer's page (/offers/KIND/EXTERNAL_ID) and the search's (/offers?q=): what offersync last sent, where the
// offer stands on the marketplace, whether it failed or is held back, and its history. Functions of their views
// only; no script. Titles and messages come from the catalogue and the marketplace: all escaped.
import type { OfferEvent, OfferEventChange } from '../state/records.ts';
import { formatCents } from '../sync/plan/price-guard.ts';
import { badge, esc, htmlDocument, offerHref, searchForm, sellerName, time } from './page-html.ts';
import type { OfferPageView, SearchView } from './status-board.ts';

/**
 * A field's value as a seller reads it: a price as money (cents on the wire), with the offer's currency when it
 * has one; strings as written; anything else as JSON.
 */
function value(field: string, v: unknown, currency?: string): string {
  if (field === 'price' && typeof v === 'number' && Number.isSafeInteger(v))
    return `${formatCents(v)}${currency ? ` ${currency}` : ''}`;
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}

function change(c: OfferEventChange, currency?: string): string {
  // A secret (credentials) is stored with neither value.
  if (!('from' in c) && !('to' in c)) return `${esc(c.field)}: (changed)`;
  const from = 'from' in c ? `${esc(value(c.field, c.from, currency))} → ` : '';
  const why =
    c.why === 'drift' ? ' (edited on the website, put back)' : c.why === 'unsent' ? ' (never sent before)' : '';
  return `${esc(c.field)}: ${from}${esc(value(c.field, c.to, currency))}${why}`;
}

function eventItem(e: OfferEvent, now: number, currency?: string): string {
  const tone = e.answer?.outcome === 'refused' ? 'bad' : e.type === 'sold' ? 'ok' : 'info';
  const answer = e.answer
    ? ` · marketplace: ${
        e.answer.outcome === 'ok'
          ? `took it${e.answer.status !== null ? ` (${e.answer.status})` : ''}`
          : e.answer.outcome === 'refused'
            ? `refused it${e.answer.status !== null ? ` (${e.answer.status})` : ''}`
            : 'no answer'
      }`
    : '';
  const quantity = e.quantity !== null ? ` · ${e.quantity} sold` : '';
  const lines = [
    `<div>${badge(e.type, tone)} ${time(e.at, now)}${esc(quantity)}${esc(answer)}</div>`,
    ...(e.route ? [`<div class="where">${esc(e.route)}</div>`] : []),
    ...(e.detail ? [`<div>${esc(e.detail)}</div>`] : []),
    ...(e.answer?.message ? [`<div>${esc(e.answer.message)}</div>`] : []),
    ...(e.changes.length > 0 ? [`<ul>${e.changes.map((c) => `<li>${change(c, currency)}</li>`).join('')}</ul>`] : []),
  ];
  return `<li>${lines.join('')}</li>`;
}

function heading(v: { readonly seller: OfferPageView['seller'] }): string {
  return `<p class="muted"><a href="/">← ${esc(sellerName(v.seller))} status</a></p>`;
}

export function renderOfferPage(v: OfferPageView): string {
  const now = v.generatedAt;
  const title = v.title ? ` · ${esc(v.title)}` : '';
  const p = v.problem;
  const state = p
    ? p.state === 'backoff'
      ? `${badge('held back', 'warn')} ${
          p.nextAttemptAt === null || p.nextAttemptAt === undefined
            ? 'until its entry changes'
            : `sent again ${time(p.nextAttemptAt, now)}`
        }<div>${esc(p.message)}</div>`
      : `${badge(p.state, 'bad')}<div>${esc(p.message)}</div>`
    : v.catalogueErrors.length > 0
      ? `${badge('invalid in the catalogue', 'warn')}${v.catalogueErrors
          .map((e) => `<div class="where">${esc(e.where)}</div><div>${esc(e.message)}</div>`)
          .join('')}`
      : v.known
        ? badge('no problem known', 'ok')
        : '';
  const currency = typeof v.lastSent?.currency === 'string' ? v.lastSent.currency : undefined;
  const facts = [
    ['status on the marketplace', v.remoteStatus ?? 'not known'],
    ['marketplace id', v.remoteId === null ? 'none yet' : String(v.remoteId)],
    ['in the catalogue', v.where ?? 'not in the catalogue of the last run'],
  ]
    .map(([k, val]) => `<dt>${esc(k!)}</dt><dd>${esc(val!)}</dd>`)
    .join('');
  const sent = v.lastSent
    ? `<dl class="fields">${Object.entries(v.lastSent)
        .map(([k, val]) => `<dt>${esc(k)}</dt><dd>${esc(value(k, val, currency))}</dd>`)
        .join('')}</dl>`
    : '<p class="muted">Nothing sent yet.</p>';
  const history =
    v.history.length === 0
      ? '<p class="muted">Nothing recorded yet.</p>'
      : `<ul class="list">${[...v.history]
          .reverse()
          .map((e) => eventItem(e, now, currency))
          .join('')}</ul>`;
  const body = v.known
    ? `${heading(v)}<h1>${esc(v.kind)} <b>${esc(v.externalId)}</b>${title}</h1>
<section><h2>Where it stands</h2><div>${state}</div><dl class="fields">${facts}</dl></section>
<section><h2>Fields as last sent</h2>${sent}</section>
<section><h2>History (newest first)</h2>${history}</section>
${searchForm()}`
    : `${heading(v)}<h1>${esc(v.kind)} <b>${esc(v.externalId)}</b></h1>
<p>offersync knows no ${esc(v.kind)} with this external_id. Check its spelling in the catalogue, or find it:</p>
${searchForm(v.externalId)}`;
  return htmlDocument(`${v.kind} ${v.externalId} · ${sellerName(v.seller)} · offersync`, body);
}

export function renderSearchPage(v: SearchView): string {
  const results =
    v.query === ''
      ? ''
      : v.hits.length === 0
        ? `<p>No offer's external_id or title holds “${esc(v.query)}”.</p>`
        : `<ul class="list">${v.hits
            .map(
              (h) =>
                `<li><a href="${esc(offerHref(h.kind, h.externalId))}">${esc(h.kind)} <b>${esc(h.externalId)}</b>${
                  h.title ? ` · ${esc(h.title)}` : ''
                }</a><div class="muted">${esc(h.remoteStatus ?? 'status not known')}${
                  h.remoteId !== null ? ` · marketplace id ${h.remoteId}` : ''
                }</div></li>`,
            )
            .join('')}</ul>`;
  const found = v.found.atLeast ? `${v.found.count} or more` : String(v.found.count);
  const shown = v.found.count > v.hits.length ? `; the first ${v.hits.length} are shown: make the search longer` : '';
  const count = v.query === '' ? '' : `<p class="muted">${found} found for “${esc(v.query)}”${shown}.</p>`;
  const body = `${heading(v)}<h1>Find an offer</h1>${searchForm(v.query)}${count}${results}`;
  return htmlDocument(`Find an offer · ${sellerName(v.seller)} · offersync`, body);
}
