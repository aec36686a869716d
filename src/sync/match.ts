// Planning, stage 1 (like rclone's march): merge the catalogue, the state db and the remote snapshot into one
// record per offer key, each saying on which side the offer is and what the remote picture says of it.
// Nothing is decided here; decide-desired.ts and decide-removed.ts read these records.
import type { DesiredOffer, OfferKind } from '../catalogue/desired-offer.ts';
import { OFFER_KINDS } from '../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import type { OfferKeyPair, OfferView } from '../state/offer-view.ts';
import type { OfferRecord } from '../state/records.ts';
import { type OfferKey, offerKey } from './offer-key.ts';
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
}

const STATE_BATCH = 500;

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
 * Catalogue offers first (in catalogue order), then remote-only offers as listed per kind, then state-only.
 * Yielded one at a time: the planner decides each before the next is built, so 100,000 matched records are
 * never held at once.
 */
export function* match(input: MatchInput): Generator<MatchedOffer> {
  const { remote, state } = input;
  // Seen external_ids per kind: no key string built and hashed per offer for a lookup (100,000s per plan).
  const seen: Record<OfferKind, Set<string>> = { account: new Set(), item: new Set(), topup: new Set() };
  const presenceOf = (key: OfferKey, otherwise: Presence): Presence =>
    remote.gone.has(key) ? 'gone' : remote.unconfirmed.has(key) ? 'unconfirmed' : otherwise;

  // The state of a batch of catalogue offers is read in one go: one lookup per offer was most of a plan's time.
  let batch: readonly (OfferRecord | undefined)[] = [];
  for (let i = 0; i < input.offers.length; i++) {
    const d = input.offers[i]!;
    if (i % STATE_BATCH === 0)
      batch = state.getMany(input.offers.slice(i, i + STATE_BATCH).map((o): OfferKeyPair => [o.kind, o.externalId]));
    const { kind, externalId } = d;
    const key = offerKey(kind, externalId);
    seen[kind].add(externalId);
    const rec = batch[i % STATE_BATCH];
    const snap = remote.kinds[kind];
    const listed = snap.offers.get(externalId);
    if (remote.unconfirmed.has(key)) yield matched(key, d, rec, 'catalogue', undefined, 'unconfirmed');
    else if (listed) yield matched(key, d, rec, 'both', listed, 'listed');
    else if (remote.gone.has(key)) yield matched(key, d, rec, 'catalogue', undefined, 'gone');
    else {
      const memory = snap.full ? undefined : remembered(rec);
      if (memory) yield matched(key, d, rec, 'both', memory, 'remembered');
      else yield matched(key, d, rec, 'catalogue', undefined, 'absent');
    }
  }

  for (const kind of OFFER_KINDS)
    for (const [externalId, live] of remote.kinds[kind].offers) {
      if (seen[kind].has(externalId)) continue;
      seen[kind].add(externalId);
      const key = offerKey(kind, externalId);
      const rec = state.get(kind, externalId);
      const presence = presenceOf(key, 'listed');
      yield { key, kind, externalId, side: 'remote', desired: undefined, state: rec, live, presence };
    }

  // Offers only the state knows. In a full sweep they matter only when gone or unconfirmed: with every kind
  // swept and neither set holding anything (a routine run), there is nothing to look for.
  const everyKindFull = OFFER_KINDS.every((k) => remote.kinds[k].full);
  if (everyKindFull && remote.gone.size === 0 && remote.unconfirmed.size === 0) return;
  // Their keys gathered first, since the view's loop must end before anything else reads the store.
  const stateOnly: { kind: OfferKind; externalId: string; key: OfferKey; presence: Presence }[] = [];
  for (const [kind, externalId] of state.keys()) {
    if (seen[kind].has(externalId)) continue;
    const key = offerKey(kind, externalId);
    const presence = presenceOf(key, 'remembered');
    // In a full sweep an offer absent from the list is either confirmed gone or unconfirmed.
    if (remote.kinds[kind].full && presence === 'remembered') continue;
    stateOnly.push({ kind, externalId, key, presence });
  }
  for (const { kind, externalId, key, presence } of stateOnly) {
    const rec = state.get(kind, externalId);
    if (!rec) continue;
    yield { key, kind, externalId, side: 'remote', desired: undefined, state: rec, live: remembered(rec), presence };
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
