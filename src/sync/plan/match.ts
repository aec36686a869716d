// Planning, stage 1 (like rclone's march): merge the catalogue, the state db and the remote snapshot into one
// record per offer key, each saying on which side the offer is and what the remote picture says of it.
// Nothing is decided here; plan/decide-desired.ts and plan/decide-removed.ts read these records.
import type { DesiredOffer, OfferKind } from '../../catalogue/desired-offer.ts';
import { OFFER_KINDS } from '../../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { OfferKeyPair, OfferView } from '../../state/offer-view.ts';
import type { OfferRecord } from '../../state/records.ts';
import { type OfferKey, offerKey } from '../../catalogue/identity.ts';
import type { RemoteSnapshot } from './remote-snapshot.ts';

/**
 * What the remote picture says of an offer.
 * - listed: the list returned it (`live` is what it said).
 * - remembered: an incremental list did not return it; `live` is what the state db remembers.
 * - gone: a full list missed it and a GET confirmed it is not there.
 * - unconfirmed: a full list missed it and the GET failed, or a crash left a write on it unsettled.
 * - absent: nowhere on the marketplace as far as this run can tell.
 */
export type Presence = 'listed' | 'remembered' | 'gone' | 'unconfirmed' | 'absent';

export interface MatchedOffer {
  readonly key: OfferKey;
  readonly kind: OfferKind;
  readonly externalId: string;
  /** catalogue: only in the catalogue; remote: only on the marketplace or in state; both. */
  readonly side: 'catalogue' | 'remote' | 'both';
  readonly desired: DesiredOffer | undefined;
  readonly state: OfferRecord | undefined;
  readonly live: RemoteOffer | undefined;
  readonly presence: Presence;
}

export interface MatchInput {
  readonly offers: readonly DesiredOffer[];
  readonly state: OfferView;
  readonly remote: RemoteSnapshot;
  /**
   * The listing is the caller's to spend (a run's own snapshot, forgotten after its plan): each listed offer
   * leaves its map once matched, so 100,000 listed offers are let go as the plan grows instead of after it.
   * The catalogue's offers are unique by kind and external_id (catalogue/conflict-index.ts), so none is looked
   * up twice.
   */
  readonly spendListing?: boolean;
}

/** What the state remembers, standing in for an offer an incremental list did not return. */
function remembered(rec: OfferRecord | undefined): RemoteOffer | undefined {
  if (rec === undefined || rec.remoteId === null) return undefined;
  return {
    id: rec.remoteId,
    externalId: rec.externalId,
    ...(rec.remoteStatus !== null ? { status: rec.remoteStatus } : {}),
    fields: {},
  };
}

/**
 * Offers matched (and their state looked up) per page. Small, so that a page's records and decisions die young:
 * V8's young generation is a few MB (the CLI favours size), and pages of 2,000 outlived it, so every page's
 * state rows were promoted and the old generation swelled by 20 to 30 MB of garbage between full collections,
 * the peak of a no-op run of 100,000 offers. A sqlite lookup takes 200 keys a statement; PostgreSQL answers a
 * page in one round trip, 500 for 100,000 offers.
 */
export const MATCH_PAGE = 200;

/**
 * Catalogue offers first (in catalogue order), then remote-only offers as listed per kind, then state-only.
 * Yielded a page at a time, each page's state read in one lookup (a query per page, never one per offer): the
 * planner decides a page before the next is read, so neither 100,000 matched records nor the state's records
 * are ever held at once.
 */
export async function* match(input: MatchInput): AsyncGenerator<readonly MatchedOffer[]> {
  const { remote, state } = input;
  // Seen external_ids per kind: no key string built and hashed per offer for a lookup (100,000s per plan).
  const seen: Record<OfferKind, Set<string>> = { account: new Set(), item: new Set(), topup: new Set() };
  const presenceOf = (key: OfferKey, otherwise: Presence): Presence =>
    remote.gone.has(key) ? 'gone' : remote.unconfirmed.has(key) ? 'unconfirmed' : otherwise;

  for (let from = 0; from < input.offers.length; from += MATCH_PAGE) {
    const offers = input.offers.slice(from, from + MATCH_PAGE);
    const records = await state.getMany(offers.map((o): OfferKeyPair => [o.kind, o.externalId]));
    const page: MatchedOffer[] = [];
    for (let i = 0; i < offers.length; i++) {
      const d = offers[i]!;
      const { kind, externalId } = d;
      const key = offerKey(kind, externalId);
      seen[kind].add(externalId);
      const rec = records[i];
      const snap = remote.kinds[kind];
      const listed = snap.offers.get(externalId);
      if (listed && input.spendListing) (snap.offers as Map<string, RemoteOffer>).delete(externalId);
      if (remote.unconfirmed.has(key)) page.push(matched(key, d, rec, 'catalogue', undefined, 'unconfirmed'));
      else if (listed) page.push(matched(key, d, rec, 'both', listed, 'listed'));
      else if (remote.gone.has(key)) page.push(matched(key, d, rec, 'catalogue', undefined, 'gone'));
      else {
        const memory = snap.full ? undefined : remembered(rec);
        if (memory) page.push(matched(key, d, rec, 'both', memory, 'remembered'));
        else page.push(matched(key, d, rec, 'catalogue', undefined, 'absent'));
      }
    }
    yield page;
  }

  // Offers only the marketplace lists, a page of them at a time.
  let listed: RemoteOffer[] = [];
  const remoteOnly = async (kind: OfferKind): Promise<MatchedOffer[]> => {
    const records = await state.getMany(listed.map((l): OfferKeyPair => [kind, l.externalId]));
    const page = listed.map((live, i): MatchedOffer => {
      const { externalId } = live;
      const key = offerKey(kind, externalId);
      const presence = presenceOf(key, 'listed');
      return { key, kind, externalId, side: 'remote', desired: undefined, state: records[i], live, presence };
    });
    listed = [];
    return page;
  };
  for (const kind of OFFER_KINDS) {
    const offers = remote.kinds[kind].offers as Map<string, RemoteOffer>;
    for (const [externalId, live] of offers) {
      // Deleting the entry just visited is safe while a Map is iterated.
      if (input.spendListing) offers.delete(externalId);
      if (seen[kind].has(externalId)) continue;
      seen[kind].add(externalId);
      listed.push(live);
      if (listed.length === MATCH_PAGE) yield await remoteOnly(kind);
    }
    if (listed.length > 0) yield await remoteOnly(kind);
  }

  // Offers only the state knows. In a full sweep they matter only when gone or unconfirmed: with every kind
  // swept and neither set holding anything (a routine run), there is nothing to look for.
  const everyKindFull = OFFER_KINDS.every((k) => remote.kinds[k].full);
  if (everyKindFull && remote.gone.size === 0 && remote.unconfirmed.size === 0) return;
  for await (const keys of state.keyPages()) {
    const wanted = keys.filter(([kind, externalId]) => {
      if (seen[kind].has(externalId)) return false;
      // In a full sweep an offer absent from the list is either confirmed gone or unconfirmed.
      return !remote.kinds[kind].full || presenceOf(offerKey(kind, externalId), 'remembered') !== 'remembered';
    });
    if (wanted.length === 0) continue;
    const records = await state.getMany(wanted);
    const page: MatchedOffer[] = [];
    wanted.forEach(([kind, externalId], i) => {
      const rec = records[i];
      if (!rec) return;
      const key = offerKey(kind, externalId);
      const presence = presenceOf(key, 'remembered');
      page.push({
        key,
        kind,
        externalId,
        side: 'remote',
        desired: undefined,
        state: rec,
        live: remembered(rec),
        presence,
      });
    });
    yield page;
  }
}

/** A catalogue offer's record, written out in full: an object spread gave each a hidden class of its own (V8). */
function matched(
  key: OfferKey,
  d: DesiredOffer,
  rec: OfferRecord | undefined,
  side: MatchedOffer['side'],
  live: RemoteOffer | undefined,
  presence: Presence,
): MatchedOffer {
  return { key, kind: d.kind, externalId: d.externalId, side, desired: d, state: rec, live, presence };
}
