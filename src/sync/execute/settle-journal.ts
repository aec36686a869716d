// docs/architecture.md, Journal: at start, writes a crash left unfinished are settled by reading the remote before any
// new write. A create that did land is adopted (never created twice); one that did not is forgotten, and the
// plan creates it. Other writes need nothing: the fresh snapshot shows what they did.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { Logger } from '../../log/logger.ts';
import type { MarketplaceClient } from '../../marketplace/marketplace-client.ts';
import type { StateStore } from '../../state/state-store.ts';
import type { OfferEventInput } from '../../state/records.ts';
import { errorMessage } from '../../log/scrubber.ts';
import { seen } from './offer-events.ts';
import { resourceOf } from '../fields/resource-of.ts';

export interface SettleResult {
  readonly settled: number;
  readonly adopted: number;
  /** Entries that could not be settled (the remote did not answer): no write is safe for these keys yet. */
  readonly unsettled: readonly string[];
}

export async function settleJournal(
  store: StateStore,
  client: MarketplaceClient,
  logger: Logger,
): Promise<SettleResult> {
  let settled = 0;
  let adopted = 0;
  const unsettled: string[] = [];
  const told: OfferEventInput[] = [];
  for (const entry of await store.journalUnfinished()) {
    if ((entry.op === 'create' || entry.op === 'recreate') && entry.kind !== 'image') {
      const kind = entry.kind as OfferKind;
      try {
        for (const externalId of entry.keys) {
          const found = await resourceOf(client, kind).findByExternalId(externalId);
          if (found) {
            const prev = await store.getOffer(kind, externalId);
            await store.upsertOffer(kind, externalId, {
              remoteId: found.id,
              // What the interrupted create sent is not known for sure: the next plan sends it again.
              lastApplied: prev?.remoteId === found.id ? prev.lastApplied : null,
              remoteStatus: found.status ?? null,
              managed: true,
            });
            adopted++;
            const detail = 'a create a crash interrupted had landed: adopted at the next start';
            told.push({ ...seen(kind, externalId, 'adopted', detail), runId: entry.runId, at: Date.now() });
          }
        }
        await store.journalSet(entry.id, 'done', 'settled at start');
        settled++;
      } catch (err) {
        unsettled.push(...entry.keys.map((k) => `${kind}:${k}`));
        logger.warn(
          { journal: entry.id, err: errorMessage(err) },
          'could not settle an interrupted create: retried next start',
        );
      }
      continue;
    }
    await store.journalSet(entry.id, 'failed', 'interrupted; the next snapshot shows what happened');
    settled++;
  }
  await store.recordOfferEvents(told);
  return { settled, adopted, unsettled };
}
