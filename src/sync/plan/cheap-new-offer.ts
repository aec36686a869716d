// The price guard's look at new offers: a new offer priced far below the seller's own offers of its kind and game
// (under a tenth of their median) is most likely a price in the wrong unit (89 read as cents beside 24.99 in a
// euro column). It is not listed: the plan, the run's report and the status page name it as blocked, and it is
// listed once its price changes to one in line with the others, or with --allow-price-change.
import type { DesiredOffer, OfferKind } from '../../catalogue/desired-offer.ts';
import type { CreateAction, NoopAction, PlanAction } from './plan-actions.ts';
import { formatCents } from './price-guard.ts';

/** A new offer's price under median / CHEAP_FACTOR is held. */
export const CHEAP_FACTOR = 10;
/** The seller's other offers of a kind and game needed for a median worth comparing with. */
export const MIN_OFFERS_COMPARED = 3;

const KIND_NOUN: { readonly [K in OfferKind]: string } = { account: 'account', item: 'item', topup: 'top-up' };

function groupKey(kind: OfferKind, game: string | undefined): string {
  return `${kind}\u0000${(game ?? '').trim().toLowerCase()}`;
}

/** The catalogue's prices per kind and game, sorted. */
export function pricesByGroup(offers: readonly DesiredOffer[]): ReadonlyMap<string, readonly number[]> {
  const groups = new Map<string, number[]>();
  for (const o of offers) {
    const price = o.fields.price;
    if (typeof price !== 'number' || price <= 0) continue;
    const key = groupKey(o.kind, o.fields.game);
    const list = groups.get(key);
    if (list) list.push(price);
    else groups.set(key, [price]);
  }
  for (const prices of groups.values()) prices.sort((a, b) => a - b);
  return groups;
}

/**
 * The median of the sorted prices without one occurrence of `own` (the offer's own price, which would pull the
 * median towards itself), or undefined with fewer than MIN_OFFERS_COMPARED others. O(log n): a first load of
 * 100,000 new offers asks once per offer.
 */
export function medianOfOthers(sorted: readonly number[], own: number): number | undefined {
  const n = sorted.length - 1;
  if (n < MIN_OFFERS_COMPARED) return undefined;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < own) lo = mid + 1;
    else hi = mid;
  }
  const skip = lo; // sorted[skip] === own when own is in the list
  const at = (k: number) => sorted[k < skip ? k : k + 1]!;
  const half = n >> 1;
  return n % 2 ? at(half) : Math.round((at(half - 1) + at(half)) / 2);
}

/** Why a create is held, or undefined when its price is in line with the seller's others. */
export function cheapNewOfferDetail(
  a: CreateAction,
  groups: ReadonlyMap<string, readonly number[]>,
): string | undefined {
  const price = a.desired.fields.price;
  const game = a.desired.fields.game;
  const prices = groups.get(groupKey(a.kind, game));
  if (typeof price !== 'number' || !prices) return undefined;
  const median = medianOfOthers(prices, price);
  if (median === undefined || price * CHEAP_FACTOR >= median) return undefined;
  const of = `your other ${KIND_NOUN[a.kind]} offers${game ? ` of ${game}` : ''}`;
  return (
    `price guard: not listed: this new offer's price ${formatCents(price)} (${a.desired.source.file}) is under a ` +
    `tenth of the median ${formatCents(median)} of ${of}. A whole number in a price column is cents unless the ` +
    `header says the unit (e.g. 'Price (EUR)'); correct the price, or if it is right, run reconcile with ` +
    '--allow-price-change'
  );
}

/** The plan's actions with each too-cheap create turned into a blocked no-op that says why. */
export function holdCheapNewOffers(actions: readonly PlanAction[], offers: readonly DesiredOffer[]): PlanAction[] {
  if (!actions.some((a) => a.type === 'create')) return [...actions];
  const groups = pricesByGroup(offers);
  return actions.map((a) => {
    if (a.type !== 'create') return a;
    const detail = cheapNewOfferDetail(a, groups);
    if (detail === undefined) return a;
    const held: NoopAction = { type: 'noop', kind: a.kind, externalId: a.externalId, reason: 'blocked', detail };
    return held;
  });
}
