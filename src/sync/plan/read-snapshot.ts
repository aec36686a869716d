// Reads the marketplace's side of a run (docs/architecture.md, Lists) before anything is written.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import { OFFER_KINDS } from '../../catalogue/desired-offer.ts';
import type { Logger } from '../../log/logger.ts';
import type { MarketplaceClient, OfferResource, RemoteOffer } from '../../marketplace/marketplace-client.ts';
import { asOfferView, type OfferView } from '../../state/offer-view.ts';
import type { OfferRecord } from '../../state/records.ts';
import { isDefinitelyNotFound } from '../run-stopped.ts';
import { EXECUTOR_WINDOW, forEachLimit } from '../for-each-limit.ts';
import { offerKey } from '../../catalogue/identity.ts';
import type { KindSnapshot, RemoteSnapshot } from './remote-snapshot.ts';
import { resourceOf } from '../fields/resource-of.ts';

export interface ReadSnapshotOptions {
  readonly client: MarketplaceClient;
  /** The state's records, or the store's view of them. */
  readonly state: readonly OfferRecord[] | OfferView;
  /** full: every page in `id` order. incremental: `-updated_at` pages down to the kind's cutoff. */
  readonly mode: 'full' | 'incremental';
  /**
   * Per kind, epoch ms on the marketplace's clocks below which every change was seen by an earlier read
   * (plan/marketplace-clocks.ts). A kind without one is read in full.
   */
  readonly cutoffs?: Partial<Record<OfferKind, number>>;
  readonly perPage: number;
  readonly logger: Logger;
  /**
   * Only these kinds are read (a run that joins another, for the offers a catalogue change touched); the others
   * stand as read incrementally with nothing new, the state's memory standing for them.
   */
  readonly kinds?: readonly OfferKind[];
  /**
   * Only these offers ("kind:external_id"), each read by its own GET where the state maps it: a run that joins
   * another for the few offers a catalogue change touched, whose lists may be long. Every kind stands as read
   * incrementally (the state's memory standing for the rest); an offer the state does not map is not read (a
   * create looks it up first).
   */
  readonly keys?: readonly string[];
}

export interface SnapshotResult {
  readonly snapshot: RemoteSnapshot;
  readonly pages: number;
}

/**
 * Under -updated_at, an offer changed before the cutoff ends the walk: every one after it is older still. An
 * account never updated has no updated_at (the marketplace stores null) and sorts after every one that has,
 * newest create first, so its created_at decides. An offer with neither stamp tells nothing: the walk goes on.
 */
function seenBefore(offer: RemoteOffer, cutoff: number): boolean {
  if (offer.updatedAt !== undefined) return offer.updatedAt < cutoff;
  return offer.createdAt !== undefined && offer.createdAt < cutoff;
}

async function readKind(
  resource: OfferResource,
  kind: OfferKind,
  opts: ReadSnapshotOptions,
  state: OfferView,
): Promise<{ snap: KindSnapshot; pages: number }> {
  const offers = new Map<string, RemoteOffer>();
  const duplicates = new Set<string>();
  const copies = new Map<string, RemoteOffer[]>();
  let pages = 0;
  const cutoff = opts.cutoffs?.[kind];
  const incremental = opts.mode === 'incremental' && cutoff !== undefined;
  // Offset paging moves under writes; a stable order (id) makes a full sweep see every offer once.
  const sort = incremental ? '-updated_at' : 'id';
  try {
    walk: for await (const page of resource.list({ sort, perPage: opts.perPage })) {
      pages++;
      for (const offer of page.items) {
        if (incremental && seenBefore(offer, cutoff)) break walk;
        const prev = offers.get(offer.externalId);
        if (prev && prev.id !== offer.id) {
          duplicates.add(offer.externalId);
          const listed = copies.get(offer.externalId);
          if (listed) listed.push(offer);
          else copies.set(offer.externalId, [prev, offer]);
          // Keep the one the state maps, else the older (lower id).
          const mapped = (await state.get(kind, offer.externalId))?.remoteId;
          if (mapped === offer.id || (mapped !== prev.id && offer.id < prev.id)) offers.set(offer.externalId, offer);
          continue;
        }
        offers.set(offer.externalId, offer);
      }
    }
  } catch (err) {
    opts.logger.warn(
      { kind, err: (err as Error).message },
      'list read incomplete: nothing of this kind is archived this run',
    );
    return {
      snap: {
        offers,
        full: !incremental,
        complete: false,
        duplicates: [...duplicates],
        copies,
        error: (err as Error).message,
      },
      pages,
    };
  }
  return { snap: { offers, full: !incremental, complete: true, duplicates: [...duplicates], copies }, pages };
}

/** The offers `keys` names, one GET each where the state maps them; every kind as an incremental read. */
async function readKeys(opts: ReadSnapshotOptions, state: OfferView, keys: readonly string[]): Promise<SnapshotResult> {
  const kinds = { account: unread(), item: unread(), topup: unread() } satisfies Record<OfferKind, KindSnapshot>;
  const gone = new Set<string>();
  const unconfirmed = new Set<string>();
  const pairs = keys.flatMap((key): [OfferKind, string][] => {
    const colon = key.indexOf(':');
    const kind = OFFER_KINDS.find((k) => k === key.slice(0, colon));
    return kind ? [[kind, key.slice(colon + 1)]] : [];
  });
  const mapped = (await state.getMany(pairs)).filter(
    (rec): rec is OfferRecord => rec !== undefined && rec.remoteId !== null,
  );
  await forEachLimit(mapped, EXECUTOR_WINDOW, async (rec) => {
    const key = offerKey(rec.kind, rec.externalId);
    try {
      const offer = await resourceOf(opts.client, rec.kind).get({ id: rec.remoteId! });
      if (offer.externalId === rec.externalId)
        (kinds[rec.kind].offers as Map<string, RemoteOffer>).set(rec.externalId, offer);
      else gone.add(key);
    } catch (err) {
      if (isDefinitelyNotFound(err)) gone.add(key);
      else unconfirmed.add(key);
    }
  });
  return { snapshot: { kinds, gone, unconfirmed }, pages: 0 };
}

/** A kind not read: complete as an incremental read that found nothing new (the state stands for it). */
function unread(): KindSnapshot {
  return { offers: new Map(), full: false, complete: true, duplicates: [], copies: new Map() };
}

/**
 * Lists every kind, then confirms by GET each offer the state maps but a complete full list did not return:
 * only a definite 404 makes it "gone"; any other failure leaves it "unconfirmed" (never taken for gone).
 */
export async function readSnapshot(opts: ReadSnapshotOptions): Promise<SnapshotResult> {
  const state = asOfferView(opts.state);
  if (opts.keys) return readKeys(opts, state, opts.keys);
  const results = await Promise.all(
    OFFER_KINDS.map((kind) =>
      opts.kinds === undefined || opts.kinds.includes(kind)
        ? readKind(resourceOf(opts.client, kind), kind, opts, state)
        : { snap: unread(), pages: 0 },
    ),
  );
  const kinds = {} as Record<OfferKind, KindSnapshot>;
  let pages = 0;
  OFFER_KINDS.forEach((kind, i) => {
    const r = results[i]!;
    kinds[kind] = r.snap;
    pages += r.pages;
  });

  const gone = new Set<string>();
  const unconfirmed = new Set<string>();
  // Keys a page at a time, then the few not listed, whole.
  const missing: OfferRecord[] = [];
  for await (const keys of state.keyPages()) {
    const unlisted = keys.filter(([kind, externalId]) => {
      const snap = kinds[kind];
      return snap.full && snap.complete && !snap.offers.has(externalId);
    });
    if (unlisted.length === 0) continue;
    for (const rec of await state.getMany(unlisted))
      if (rec && rec.remoteId !== null && rec.remoteStatus !== 'archived') missing.push(rec);
  }
  await forEachLimit(missing, EXECUTOR_WINDOW, async (rec) => {
    const key = offerKey(rec.kind, rec.externalId);
    try {
      const offer = await resourceOf(opts.client, rec.kind).get({ id: rec.remoteId! });
      if (offer.externalId === rec.externalId) {
        (kinds[rec.kind].offers as Map<string, RemoteOffer>).set(rec.externalId, offer);
      } else {
        gone.add(key);
      }
    } catch (err) {
      if (isDefinitelyNotFound(err)) gone.add(key);
      else {
        unconfirmed.add(key);
        opts.logger.warn(
          { kind: rec.kind, externalId: rec.externalId, err: (err as Error).message },
          'missing from the list and not confirmed by id',
        );
      }
    }
  });
  return { snapshot: { kinds, gone, unconfirmed }, pages };
}
