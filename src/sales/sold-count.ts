// Reads an item's or top-up's count of units sold against what the state db remembers: a rise is a sale, and a
// catalogue stock that has come to equal the marketplace's becomes the new baseline of the sale-or-drift rule.
import type { DesiredOffer } from '../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import type { OfferRecord } from '../state/records.ts';
import { currencyIn, priceIn, titleIn } from './sale-entry.ts';
import { isUnitKind, type SoldCountNote, type UnitSale } from './unit-sale.ts';

export interface SoldCountInput {
  readonly desired: DesiredOffer | undefined;
  readonly state: OfferRecord | undefined;
  /** The offer as the list showed it this run (not what the state remembers). */
  readonly live: RemoteOffer;
}

/** What the state db must be told of the offer's count of units sold, or undefined when nothing changed. */
export function soldCountNote(input: SoldCountInput): SoldCountNote | undefined {
  const { live, state: rec, desired } = input;
  const kind = rec?.kind ?? desired?.kind;
  if (kind === undefined || !isUnitKind(kind) || live.soldCount === undefined) return undefined;
  const soldCount = live.soldCount;
  const known = rec !== undefined && rec.remoteId === live.id;
  const before = known ? (rec.soldCount ?? null) : null;
  const externalId = live.externalId;
  // A count never seen before is a baseline, not a sale: what sold before offersync looked is not news.
  // A count that fell (a refund) gives a quantity below one: no sale.
  const quantity = before !== null ? soldCount - before : 0;
  const sale: UnitSale | undefined =
    quantity > 0
      ? {
          kind,
          externalId,
          title: titleIn(live.fields, desired?.fields),
          price: priceIn(live.fields, desired?.fields),
          currency: currencyIn(live.fields, desired?.fields),
          quantity,
          remoteId: live.id,
          soldCount,
        }
      : undefined;
  const agreed = agreedStock(desired, rec, live, known);
  const firstSight = !known || rec.soldCountAtSend == null;
  if (before === soldCount && agreed === undefined && !firstSight) return undefined;
  return {
    kind,
    externalId,
    soldCount,
    ...(sale ? { sale } : {}),
    ...(agreed !== undefined
      ? { atSend: soldCount }
      : firstSight
        ? { atSend: baseline(desired, live, soldCount) }
        : {}),
    ...(agreed !== undefined ? { agreedStock: agreed } : {}),
  };
}

/**
 * The count of units sold when the catalogue's stock was last in place, for an offer seen the first time: when the
 * marketplace shows that stock less some of the units sold, those units sold since; else the count now.
 */
function baseline(desired: DesiredOffer | undefined, live: RemoteOffer, soldCount: number): number {
  const want = desired && desired.kind !== 'account' ? desired.fields.stock : undefined;
  const shown = live.fields.stock;
  if (typeof want !== 'number' || typeof shown !== 'number' || shown >= want) return soldCount;
  const fell = want - shown;
  return fell <= soldCount ? soldCount - fell : soldCount;
}

/** The catalogue's stock, when it differs from the stock last sent but equals the marketplace's. */
function agreedStock(
  desired: DesiredOffer | undefined,
  rec: OfferRecord | undefined,
  live: RemoteOffer,
  known: boolean,
): number | undefined {
  if (!desired || desired.kind === 'account' || !known) return undefined;
  const want = desired.fields.stock;
  const sent = rec?.lastApplied?.stock;
  if (typeof want !== 'number' || typeof sent !== 'number' || want === sent) return undefined;
  return live.fields.stock === want ? want : undefined;
}
