// The marketplace's side of a run: what the lists said, per kind, and how far that picture can be trusted.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';

export interface KindSnapshot {
  /** Offers by external_id. */
  readonly offers: ReadonlyMap<string, RemoteOffer>;
  /**
   * full: every page of the list was read (a full sweep). Otherwise the snapshot holds only offers changed
   * since the cutoff of an incremental read, and the state's memory stands for the rest.
   */
  readonly full: boolean;
  /** false when a page failed: nothing of this kind may be archived, and creates are verified first. */
  readonly complete: boolean;
  /** external_ids the marketplace lists more than once (a duplicate made before offersync, or by hand). */
  readonly duplicates: readonly string[];
  /** Every offer listed under each of `duplicates`, the one in `offers` included (plan/duplicate-offers.ts). */
  readonly copies?: ReadonlyMap<string, readonly RemoteOffer[]>;
  readonly error?: string;
}

export interface RemoteSnapshot {
  readonly kinds: Readonly<Record<OfferKind, KindSnapshot>>;
  /** "kind:external_id" of offers in state that a full list missed and a GET confirmed are not there (404). */
  readonly gone: ReadonlySet<string>;
  /** "kind:external_id" of offers in state that a full list missed and whose GET failed (5xx, 401, timeout). */
  readonly unconfirmed: ReadonlySet<string>;
}

export function emptyKindSnapshot(full = true): KindSnapshot {
  return { offers: new Map(), full, complete: true, duplicates: [] };
}

/**
 * Lets go of the listed offers once the run's plan is made: the plan holds what the executor needs of them, and
 * 100,000 listed offers would otherwise live through the whole execution. The snapshot is the run's own.
 */
export function forgetListing(snapshot: RemoteSnapshot): void {
  for (const kind of Object.keys(snapshot.kinds) as OfferKind[]) {
    (snapshot.kinds[kind].offers as Map<string, RemoteOffer>).clear();
    (snapshot.kinds[kind].copies as Map<string, RemoteOffer[]> | undefined)?.clear();
  }
}
