// A bulk answer naming an offer its call was not sent for: the marketplace found an element by another identifier
// than the one meant (the real server reads an external_id first, and an all-digit one as an internal id), so a
// write may have landed on an offer the seller did not mean. The run stops at once and says which.
import type { OfferKind } from '../../catalogue/desired-offer.ts';

/** An offer as a bulk answer or a bulk call names it. */
export interface NamedOffer {
  readonly id?: number;
  readonly externalId?: string;
}

const describe = (kind: OfferKind, o: NamedOffer): string =>
  [
    `${kind}`,
    ...(o.id !== undefined ? [`#${o.id}`] : []),
    ...(o.externalId !== undefined ? [`external_id ${JSON.stringify(o.externalId)}`] : []),
  ].join(' ');

export class WrongOfferError extends Error {
  override readonly name = 'WrongOfferError';

  constructor(
    readonly kind: OfferKind,
    /** Method and path of the bulk call. */
    readonly route: string,
    /** The offer the answer names that the call was not sent for. */
    readonly hit: NamedOffer,
    /** The offers of the call the answer does not show done: the ones meant. */
    readonly meant: readonly NamedOffer[],
  ) {
    const meantText = meant.length > 0 ? meant.map((m) => describe(kind, m)).join(', ') : 'none it names';
    super(
      `${route} answered for ${describe(kind, hit)}, which the call was not sent for (meant: ${meantText}). ` +
        'The marketplace may have changed that offer: check it on the website and put it back by hand. ' +
        'offersync stopped the run before any further write, and sends such offers one by one from now on; run it ' +
        'again once the offer is checked.',
    );
  }
}
