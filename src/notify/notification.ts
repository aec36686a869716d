// What a run tells the seller's webhooks: a sale, an offer that failed (or was blocked, or waits in backoff), a
// guard stop, a marketplace that could not be read. Pure: from a run's report, the catalogue and what was told
// before (kept in the state db's meta, so a daemon tick or a cron run does not repeat a failure every time).
import type { DesiredOffer, OfferKind } from '../catalogue/desired-offer.ts';
import { scrubSecrets } from '../log/scrubber.ts';
import type { CatalogueView } from '../sync/plan/catalogue-view.ts';
import type { OfferOutcome, RunReport } from '../sync/report/run-report.ts';

// sold-account-live: an offer offersync did not make (listed by hand) sells an account already sold, in this shop
// or another of its seller group: urgent, its own event so that it can go to a channel someone watches.
export const NOTIFY_EVENTS = ['sold', 'failed', 'backoff', 'guard', 'unreadable', 'sold-account-live'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** The JSON body of one webhook POST (plus the chat fields a target needs, see webhook-notifier.ts). */
export interface Notification {
  readonly event: NotifyEvent;
  readonly seller: string;
  readonly kind?: OfferKind;
  readonly external_id?: string;
  readonly title?: string;
  readonly message: string;
  /** A sale of an item or top-up: the units sold. */
  readonly quantity?: number;
  readonly run_id?: string;
  /** ISO time the event was seen. */
  readonly at: string;
}

/** What was told already: sales by offer and status, failures by offer and message. */
export interface Told {
  readonly sold: readonly string[];
  readonly failing: Readonly<Record<string, string>>;
}

export const NOTHING_TOLD: Told = { sold: [], failing: {} };
/** Sales remembered; the oldest are forgotten first (a forgotten sale is never seen again anyway). */
const MAX_SOLD_REMEMBERED = 50_000;

const OFFER_KINDS = new Set<string>(['account', 'item', 'topup']);
const isOfferKind = (k: string): k is OfferKind => OFFER_KINDS.has(k);

/** The title the seller gave the offer (a top-up's offer_title), for a message a person reads. */
function titleOf(catalogue: CatalogueView | undefined, kind: OfferKind, externalId: string): string | undefined {
  const offer = catalogue?.offers.find((o) => o.kind === kind && o.externalId === externalId);
  if (!offer) return undefined;
  const f = offer.fields as { title?: string; offer_title?: string };
  return f.title ?? f.offer_title;
}

/** Credentials of the offer, blanked out of a message: a marketplace may echo a refused value. */
export function scrubCredentials(offer: DesiredOffer, message: string): string {
  return scrubSecrets(message, offer.kind === 'account' && offer.credentials ? Object.values(offer.credentials) : []);
}

function scrub(catalogue: CatalogueView | undefined, kind: OfferKind, externalId: string, message: string): string {
  const offer = catalogue?.offers.find((o) => o.kind === kind && o.externalId === externalId);
  return offer ? scrubCredentials(offer, message) : message;
}

/** An offer held back by its per-offer backoff (the run reports it 'held'). */
function isBackoff(o: OfferOutcome): boolean {
  return o.outcome === 'held';
}

export interface RunNotifications {
  readonly notifications: Notification[];
  readonly told: Told;
}

/** The notifications of a run that finished (with a report), and what is told after it. */
export function notificationsOfRun(
  report: RunReport,
  catalogue: CatalogueView | undefined,
  seller: string,
  told: Told,
  now: Date,
): RunNotifications {
  const at = now.toISOString();
  const out: Notification[] = [];
  const sold = new Set(told.sold);
  const failing: Record<string, string> = { ...told.failing };
  const base = (o: OfferOutcome & { kind: OfferKind }) => {
    const title = titleOf(catalogue, o.kind, o.externalId);
    return { seller, kind: o.kind, external_id: o.externalId, ...(title ? { title } : {}), run_id: report.runId, at };
  };
  if (report.outcome === 'aborted') {
    const message = report.messages[0] ?? 'a guard stopped the run before its first write';
    out.push({ event: 'guard', seller, message, run_id: report.runId, at });
  }
  for (const o of report.outcomes) {
    if (!isOfferKind(o.kind)) continue;
    const offer = o as OfferOutcome & { kind: OfferKind };
    const key = `${o.kind}:${o.externalId}`;
    if (o.outcome === 'sold') {
      const status = /\b(sold|refunded|processing)\b/.exec(o.message ?? '')?.[1] ?? 'sold';
      const soldKey = `${key}:${status}`;
      if (!sold.has(soldKey)) {
        sold.add(soldKey);
        out.push({ event: 'sold', ...base(offer), message: `the marketplace marks it ${status}` });
      }
      delete failing[key];
    } else if (o.outcome === 'failed' || o.outcome === 'blocked' || isBackoff(o)) {
      // Held back after a refusal already told (its message says when it goes again): nothing new.
      if (isBackoff(o) && failing[key] !== undefined) continue;
      const message = scrub(catalogue, offer.kind, o.externalId, o.message ?? o.outcome);
      if (failing[key] !== message) {
        failing[key] = message;
        const event = o.urgent ?? (isBackoff(o) ? 'backoff' : 'failed');
        out.push({ event, ...base(offer), message });
      }
    } else delete failing[key];
  }
  // Units of items and top-ups: each sale is in one run's report only (the state db remembers the count).
  for (const s of report.sales) {
    const title = s.title ?? titleOf(catalogue, s.kind, s.externalId);
    out.push({
      event: 'sold',
      seller,
      kind: s.kind,
      external_id: s.externalId,
      ...(title ? { title } : {}),
      message: `${s.quantity} unit${s.quantity === 1 ? '' : 's'} sold (sold count now ${s.soldCount})`,
      quantity: s.quantity,
      run_id: report.runId,
      at,
    });
  }
  const soldList = [...sold];
  return {
    notifications: out,
    told: { sold: soldList.slice(Math.max(0, soldList.length - MAX_SOLD_REMEMBERED)), failing },
  };
}

/** The notification of a run that could not read the marketplace at all. */
export function unreadableNotification(message: string, seller: string, now: Date): Notification {
  return { event: 'unreadable', seller, message, at: now.toISOString() };
}

/** A one-line text for chat targets (Telegram, Slack, Discord, ...), which show `text` or `content`. */
export function notificationText(n: Notification): string {
  const what = {
    sold: 'sold',
    failed: 'failed',
    backoff: 'waits in backoff',
    guard: 'run stopped by a guard',
    unreadable: 'could not read the marketplace',
    'sold-account-live': 'URGENT, a live offer of a sold account',
  }[n.event];
  const offer = n.external_id ? ` ${n.kind} ${n.external_id}${n.title ? ` (${n.title})` : ''}` : '';
  return `offersync ${n.seller}:${offer} ${what}: ${n.message}`;
}

export function parseTold(text: string | undefined): Told {
  if (!text) return NOTHING_TOLD;
  try {
    const v = JSON.parse(text) as Partial<Told>;
    return {
      sold: Array.isArray(v.sold) ? v.sold.filter((s): s is string => typeof s === 'string') : [],
      failing: v.failing && typeof v.failing === 'object' ? v.failing : {},
    };
  } catch {
    return NOTHING_TOLD;
  }
}
