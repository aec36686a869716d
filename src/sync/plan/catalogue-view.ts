// What a run needs of the catalogue: the loader's snapshot, as far as planning and reporting go.
import type { DesiredOffer, OfferKind } from '../../catalogue/desired-offer.ts';
import type { HeldAccount } from '../../catalogue/same-account.ts';

export interface CatalogueView {
  readonly offers: readonly DesiredOffer[];
  readonly complete: boolean;
  readonly quarantinedFiles: readonly string[];
  readonly invalidOffers: readonly { readonly kind: OfferKind; readonly externalId: string; readonly file: string }[];
  readonly problems: readonly CatalogueViewProblem[];
  /** Account offers held back as selling the same account as another, by fingerprint (never the login). */
  readonly heldAccounts?: readonly HeldAccount[];
}

export interface CatalogueViewProblem {
  readonly severity: 'error' | 'warning';
  readonly kind?: OfferKind;
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  readonly pointer?: string;
  readonly externalId?: string;
  readonly field?: string;
  readonly message: string;
}
