// An offer's story as `offersync history` prints it: one event a line, oldest first, a write's route and the
// marketplace's answer on the line below it; and the same as JSON for scripts (field names in docs/runs.md,
// An offer's history).
import type { OfferEvent, OfferEventChange, StateKind } from '../state/records.ts';

/** Fields that hold a price in integer cents, shown in major units. */
const PRICE_FIELDS: ReadonlySet<string> = new Set(['price']);

/** 2026-11-24 23:50:01Z: a reader's UTC time, to the second. */
export function eventTime(at: number): string {
  return new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

function value(field: string, v: unknown): string {
  if (v === undefined || v === null) return '(none)';
  if (PRICE_FIELDS.has(field) && typeof v === 'number' && Number.isSafeInteger(v)) return (v / 100).toFixed(2);
  return JSON.stringify(v);
}

/** `price 12.00 -> 10.00`; a secret (no values kept) `credentials (changed)`; a create's field `price 12.00`. */
function change(c: OfferEventChange): string {
  if (!('from' in c) && !('to' in c)) return `${c.field} (changed)`;
  if (!('from' in c)) return `${c.field} ${value(c.field, c.to)}`;
  return `${c.field} ${value(c.field, c.from)} -> ${value(c.field, c.to)}`;
}

/** What an update did: the catalogue's changes, then what it patched back after an edit on the website. */
function updateText(changes: readonly OfferEventChange[], verb: string): string {
  const own = changes.filter((c) => c.why !== 'drift').map(change);
  const back = changes.filter((c) => c.why === 'drift').map(change);
  const parts = [
    ...(own.length > 0 ? [`${verb} ${own.join(', ')}`] : []),
    ...(back.length > 0 ? [`${verb === 'updated' ? 'patched back' : 'patch back'} ${back.join(', ')}`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : verb;
}

/** What happened, in a seller's words: "updated price 12.00 -> 10.00", "sold 1 unit", "archived (...)". */
export function describeEvent(e: OfferEvent): string {
  const done = e.answer === null || e.answer.outcome === 'ok';
  const why = e.detail ? ` (${e.detail})` : '';
  switch (e.type) {
    case 'created': {
      const fields = e.changes.length > 0 ? `: ${e.changes.map(change).join(', ')}` : '';
      return `${done ? 'created' : 'tried to create'}${fields}`;
    }
    case 'updated':
      return `${updateText(e.changes, done ? 'updated' : 'tried to update')}${why}`;
    case 'archived':
      return `${done ? 'archived' : 'tried to archive'}${why}`;
    case 'adopted':
      return `adopted${why}`;
    case 'sold':
      return e.quantity !== null ? `sold ${e.quantity} unit${e.quantity === 1 ? '' : 's'}` : `sold${why}`;
    case 'marked':
      return e.detail ?? 'marked by the marketplace';
    case 'edited-on-website':
      return `edited on the website: ${e.changes.map(change).join(', ')}`;
    case 'gone':
      return `gone from the marketplace${why}`;
    default:
      return e.type satisfies never;
  }
}

/** The marketplace's answer to a write, as the line under it says it. */
function answerText(e: OfferEvent): string | null {
  if (!e.route || !e.answer) return null;
  const { outcome, status, message } = e.answer;
  const said = message ? `: ${message}` : '';
  if (outcome === 'ok') return `${e.route}: accepted`;
  if (outcome === 'refused') return `${e.route}: refused${status !== null ? ` (${status})` : ''}${said}`;
  return `${e.route}: no answer${status !== null ? ` (${status})` : ''}${said}; looked up again at the next run`;
}

export interface HistoryHeading {
  readonly kind: StateKind;
  readonly externalId: string;
  readonly title: string | null;
  /** Events kept per offer. */
  readonly kept: number;
}

export function formatHistory(h: HistoryHeading, events: readonly OfferEvent[]): string {
  const title = h.title ? ` (${h.title})` : '';
  const lines = [
    `${h.kind} ${h.externalId}${title}: ${events.length} event${events.length === 1 ? '' : 's'}, oldest first`,
  ];
  for (const e of events) {
    lines.push(`${eventTime(e.at)}  ${e.runId ? `run ${e.runId}` : 'no run'}  ${describeEvent(e)}`);
    const answer = answerText(e);
    if (answer) lines.push(`    ${answer}`);
  }
  if (events.length >= h.kept) lines.push(`(offersync keeps the last ${h.kept} events of each offer)`);
  return `${lines.join('\n')}\n`;
}

/** One change as --json gives it: a secret as `{field, changed: true}`, never a value. */
function changeJson(c: OfferEventChange): Record<string, unknown> {
  if (!('from' in c) && !('to' in c)) return { field: c.field, changed: true };
  return {
    field: c.field,
    from: c.from ?? null,
    to: c.to ?? null,
    ...(c.why ? { why: c.why } : {}),
  };
}

export function historyJson(h: HistoryHeading, events: readonly OfferEvent[]): Record<string, unknown> {
  return {
    kind: h.kind,
    external_id: h.externalId,
    title: h.title,
    kept_per_offer: h.kept,
    events: events.map((e) => ({
      id: e.id,
      at: new Date(e.at).toISOString(),
      run_id: e.runId,
      event: e.type,
      text: describeEvent(e),
      route: e.route,
      changes: e.changes.map(changeJson),
      quantity: e.quantity,
      detail: e.detail,
      answer: e.answer,
    })),
  };
}
