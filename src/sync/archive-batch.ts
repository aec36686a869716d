// Archives, last in a run: accounts through bulk-remove, top-ups through bulk-update, items one by one
// (the document gives items no archive or bulk route: PATCH status=archived).
import type { OfferKind } from '../catalogue/desired-offer.ts';
import { CAPABILITIES, isCapabilityRefusal } from './capabilities.ts';
import { chunk } from './chunk.ts';
import { EXECUTOR_WINDOW, forEachLimit } from './for-each-limit.ts';
import { errorMessage, isDefinitelyNotFound, statusOf } from './errors.ts';
import type { Execution } from './executor.ts';
import { PRIORITY } from './executor.ts';
import type { ArchiveAction } from './plan.ts';
import { bulkArchiveTopUps } from './topup-bulk.ts';

export async function archiveAll(ex: Execution, archives: readonly ArchiveAction[]): Promise<void> {
  const of = (k: OfferKind) => archives.filter((a) => a.kind === k);
  await Promise.all([
    archiveAccounts(ex, of('account')),
    forEachLimit(of('item'), EXECUTOR_WINDOW, (a) => archiveOne(ex, a)),
    bulkArchiveTopUps(ex, of('topup')),
  ]);
}

export function archived(ex: Execution, a: ArchiveAction): void {
  ex.store.upsertOffer(a.kind, a.externalId, { remoteStatus: 'archived' });
  ex.report({ kind: a.kind, externalId: a.externalId, outcome: 'archived', message: a.reason });
}

/** One offer, by its own route: DELETE for accounts, PATCH status=archived for items and top-ups. */
export async function archiveOne(ex: Execution, a: ArchiveAction): Promise<void> {
  try {
    await ex.journaled('archive', a.kind, [a.externalId], async () => {
      if (a.kind === 'account') return ex.client.accounts.archive({ id: a.remoteId }, { priority: PRIORITY.archive });
      const resource = a.kind === 'item' ? ex.client.items : ex.client.topUps;
      return resource.update({ id: a.remoteId }, { status: 'archived' }, { priority: PRIORITY.archive });
    });
    archived(ex, a);
  } catch (err) {
    if (isDefinitelyNotFound(err)) {
      ex.store.deleteOffer(a.kind, a.externalId);
      return ex.report({
        kind: a.kind,
        externalId: a.externalId,
        outcome: 'skipped',
        message: 'already gone from the marketplace',
      });
    }
    ex.report({
      kind: a.kind,
      externalId: a.externalId,
      outcome: 'failed',
      message: `archive failed: ${errorMessage(err)}`,
    });
  }
}

async function archiveAccounts(ex: Execution, accounts: readonly ArchiveAction[]): Promise<void> {
  if (accounts.length === 0) return;
  const cap = ex.store.getCapability(CAPABILITIES.accountBulkRemove);
  if ((cap && !cap.usable) || accounts.length === 1) {
    await forEachLimit(accounts, EXECUTOR_WINDOW, (a) => archiveOne(ex, a));
    return;
  }
  const batches = chunk(accounts, ex.options.bulkRemoveSize);
  // The first batch probes the route when it has never been tried; the rest follow its verdict.
  const [first, ...rest] = batches;
  await removeBatch(ex, first!);
  await forEachLimit(rest, EXECUTOR_WINDOW, (b) => removeBatch(ex, b));
}

async function removeBatch(ex: Execution, batch: readonly ArchiveAction[]): Promise<void> {
  const cap = ex.store.getCapability(CAPABILITIES.accountBulkRemove);
  if (cap && !cap.usable) {
    await forEachLimit(batch, EXECUTOR_WINDOW, (a) => archiveOne(ex, a));
    return;
  }
  try {
    const res = await ex.journaled(
      'bulk-remove',
      'account',
      batch.map((a) => a.externalId),
      () => ex.client.accounts.bulkRemove({ ids: batch.map((a) => a.remoteId) }, { priority: PRIORITY.archive }),
    );
    if (!cap) ex.store.setCapability(CAPABILITIES.accountBulkRemove, true, null);
    if (res.removed === batch.length) {
      for (const a of batch) archived(ex, a);
      return;
    }
    // The counts do not say which ones: read each back.
    await Promise.all(
      batch.map(async (a) => {
        let live;
        try {
          live = await ex.client.accounts.get({ id: a.remoteId }, { priority: PRIORITY.archive });
        } catch (err) {
          if (isDefinitelyNotFound(err)) ex.store.deleteOffer(a.kind, a.externalId);
          else
            ex.report({
              kind: a.kind,
              externalId: a.externalId,
              outcome: 'failed',
              message: `bulk-remove left it unconfirmed: ${errorMessage(err)}`,
            });
          return;
        }
        if (live.status === 'archived') archived(ex, a);
        else await archiveOne(ex, a);
      }),
    );
  } catch (err) {
    if (isCapabilityRefusal(err)) {
      ex.store.setCapability(CAPABILITIES.accountBulkRemove, false, `${statusOf(err)}: ${errorMessage(err)}`);
      ex.logger.warn({ status: statusOf(err) }, 'bulk-remove refused: archiving accounts one by one');
      await forEachLimit(batch, EXECUTOR_WINDOW, (a) => archiveOne(ex, a));
      return;
    }
    for (const a of batch)
      ex.report({
        kind: a.kind,
        externalId: a.externalId,
        outcome: 'failed',
        message: `bulk-remove failed: ${errorMessage(err)}`,
      });
  }
}
