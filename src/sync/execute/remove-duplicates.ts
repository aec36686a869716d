// After a full read: the copies of a managed offer that offersync made (plan/duplicate-offers.ts) are archived, each
// journalled like any write and through the same queue (so fenced by the writer lease), and the run says so.
import { OFFER_KINDS } from '../../catalogue/desired-offer.ts';
import type { Logger } from '../../log/logger.ts';
import type { MarketplaceClient } from '../../marketplace/marketplace-client.ts';
import type { OfferView } from '../../state/offer-view.ts';
import type { StateStore } from '../../state/state-store.ts';
import { type DuplicateOffer, describeDuplicate, sortDuplicate } from '../plan/duplicate-offers.ts';
import { errorMessage } from '../../log/scrubber.ts';
import type { RemoteSnapshot } from '../plan/remote-snapshot.ts';
import { resourceOf } from '../fields/resource-of.ts';

/** Sorts every duplicated external_id a complete full list showed. Call before the listing is forgotten. */
export async function findDuplicates(
  snapshot: RemoteSnapshot,
  state: OfferView,
  store: StateStore,
): Promise<DuplicateOffer[]> {
  const found: DuplicateOffer[] = [];
  for (const kind of OFFER_KINDS) {
    const snap = snapshot.kinds[kind];
    if (!snap.full || !snap.complete || !snap.copies || snap.copies.size === 0) continue;
    const creates = await store.journalCreateCounts(kind, [...snap.copies.keys()]);
    for (const [externalId, copies] of snap.copies) {
      const mappedId = (await state.get(kind, externalId))?.remoteId ?? undefined;
      found.push(sortDuplicate({ kind, externalId, copies, mappedId, creates: creates.get(externalId) ?? 0 }));
    }
  }
  return found;
}

export interface DuplicateRemoval {
  /** One line per duplicated external_id with a copy still offered besides the kept one, for the run's report. */
  readonly messages: readonly string[];
  /** "kind:external_id" of every duplicate sorted: the planner's bare warning about them is not repeated. */
  readonly covered: readonly string[];
  readonly archived: number;
  /** Copies offersync made that it could not archive (the marketplace refused, or the run was stopped). */
  readonly failed: number;
}

export async function removeDuplicates(
  found: readonly DuplicateOffer[],
  deps: {
    readonly client: MarketplaceClient;
    readonly store: StateStore;
    readonly runId: string;
    readonly logger: Logger;
    readonly signal?: AbortSignal;
  },
): Promise<DuplicateRemoval> {
  const messages: string[] = [];
  const covered = found.map((d) => `${d.kind}:${d.externalId}`);
  let archivedCount = 0;
  let failedCount = 0;
  for (const d of found) {
    const archived: number[] = [];
    const failed: number[] = [];
    for (const copy of d.made) {
      if (deps.signal?.aborted) {
        failed.push(copy.id);
        continue;
      }
      try {
        const entry = await deps.store.journalBegin({
          runId: deps.runId,
          op: 'archive',
          kind: d.kind,
          keys: [d.externalId],
        });
        await deps.store.journalSet(entry.id, 'sent');
        try {
          await resourceOf(deps.client, d.kind).archive({ id: copy.id });
        } catch (err) {
          await deps.store.journalSet(entry.id, 'failed', errorMessage(err));
          throw err;
        }
        await deps.store.journalSet(entry.id, 'done');
        archived.push(copy.id);
      } catch (err) {
        failed.push(copy.id);
        deps.logger.warn(
          { kind: d.kind, externalId: d.externalId, id: copy.id, err: errorMessage(err) },
          'a duplicate offersync made could not be archived',
        );
      }
    }
    archivedCount += archived.length;
    failedCount += failed.length;
    // Only archived copies besides the kept one (removed by an earlier run): nothing left to say.
    if (d.kept !== null && d.made.length === 0 && d.left.length === 0) continue;
    const message = describeDuplicate(d, archived, failed);
    deps.logger.warn({ kind: d.kind, externalId: d.externalId, archived, left: d.left.map((c) => c.id) }, message);
    messages.push(message);
  }
  return { messages, covered, archived: archivedCount, failed: failedCount };
}
