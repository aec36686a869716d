// Items and top-ups sell in units: the marketplace counts them (sold_count) and keeps the offer listed. A rise of
// that count since the last run is a sale, told to the seller as accounts' sales are (docs/architecture.md, Sales).
import type { OfferKind } from '../catalogue/desired-offer.ts';

/** The kinds that sell in units; an account sells whole (its status turns sold). */
export type UnitKind = Exclude<OfferKind, 'account'>;

/** Units of one item or top-up the marketplace sold since offersync last looked. */
export interface UnitSale {
  readonly kind: UnitKind;
  readonly externalId: string;
  /** The offer's title (top-ups: offer_title), when known. */
  readonly title: string | null;
  /** The price of one unit in cents, as the list showed it (else as the catalogue has it); null when unknown. */
  readonly price: number | null;
  /** Top-ups: their currency; items have none in the API. */
  readonly currency: string | null;
  readonly quantity: number;
  /** The marketplace's id of the offer. */
  readonly remoteId: number;
  /** The marketplace's count of units sold, after this sale. */
  readonly soldCount: number;
}

/** What a run tells the state db of an offer's count of units sold. */
export interface SoldCountNote {
  readonly kind: UnitKind;
  readonly externalId: string;
  /** The count as the marketplace shows it now. */
  readonly soldCount: number;
  /** A rise since the last run, reported. */
  readonly sale?: UnitSale;
  /**
   * The count the stock's baseline is taken at: set when offersync first sees the offer, and when the catalogue's
   * stock has come to equal the marketplace's (the seller's inventory caught up with a sale), with `agreedStock`.
   */
  readonly atSend?: number;
  /** Recorded as the stock last sent: the catalogue and the marketplace agree on it. */
  readonly agreedStock?: number;
}

export function isUnitKind(kind: OfferKind): kind is UnitKind {
  return kind !== 'account';
}

/** "item gold-1 (Gold 1000): 2 units sold", for people. */
export function describeSale(s: UnitSale): string {
  const title = s.title ? ` (${s.title})` : '';
  return `${s.kind} ${s.externalId}${title}: ${s.quantity} unit${s.quantity === 1 ? '' : 's'} sold`;
}
