// Top-up changes and archives through POST /top-ups/bulk-update. Its limits and answer are not documented:
// the first call probes it, a refusal of the route or body shape marks it unusable and the work falls back
// to one PATCH per offer; per-offer outcomes are read where the answer gives them.
import { CAPABILITIES, isCapabilityRefusal } from './capabilities.ts';
import { chunk } from './chunk.ts';
import { EXECUTOR_WINDOW, forEachLimit } from './for-each-limit.ts';
import { errorMessage, statusOf } from './errors.ts';
import type { Execution } from './executor.ts';
import { PRIORITY } from './executor.ts';
import type { ArchiveAction, UpdateAction } from './plan.ts';
import { archived, archiveOne } from './archive-batch.ts';

interface BulkElement {
  readonly externalId: string;
  readonly remoteId: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly onOk: (offer: {
    id: number;
    externalId: string;
    status?: string;
    fields: Readonly<Record<string, unknown>>;
  }) => void;
  readonly fallback: () => Promise<void>;
}

async function runBulk(ex: Execution, elements: readonly BulkElement[]): Promise<void> {
  if (elements.length === 0) return;
  const usable = () => ex.store.getCapability(CAPABILITIES.topUpBulkUpdate)?.usable;
  if (usable() === false || elements.length === 1) {
    await forEachLimit(elements, EXECUTOR_WINDOW, (e) => e.fallback());
    return;
  }
  const [first, ...rest] = chunk(elements, ex.options.topUpBulkSize);
  await sendBatch(ex, first!);
  await forEachLimit(rest, EXECUTOR_WINDOW, (b) => sendBatch(ex, b));
}

async function sendBatch(ex: Execution, batch: readonly BulkElement[]): Promise<void> {
  const cap = ex.store.getCapability(CAPABILITIES.topUpBulkUpdate);
  if (cap && !cap.usable) {
    await forEachLimit(batch, EXECUTOR_WINDOW, (e) => e.fallback());
    return;
  }
  const offers = batch.map((e) => ({ id: e.remoteId, external_id: e.externalId, ...e.body }));
  try {
    const res = await ex.journaled(
      'bulk-update',
      'topup',
      batch.map((e) => e.externalId),
      () => ex.client.topUps.bulkUpdate(offers, { priority: PRIORITY.update }),
    );
    if (!cap) ex.store.setCapability(CAPABILITIES.topUpBulkUpdate, true, null);
    for (const e of batch) {
      const o = res.outcomes?.get(e.externalId);
      if (o && !o.ok) {
        ex.report({
          kind: 'topup',
          externalId: e.externalId,
          outcome: 'failed',
          message: `bulk-update: ${o.message ?? 'refused'}`,
        });
        continue;
      }
      const status = typeof e.body.status === 'string' ? e.body.status : undefined;
      e.onOk(o?.offer ?? { id: e.remoteId, externalId: e.externalId, ...(status ? { status } : {}), fields: {} });
    }
  } catch (err) {
    if (isCapabilityRefusal(err)) {
      ex.store.setCapability(CAPABILITIES.topUpBulkUpdate, false, `${statusOf(err)}: ${errorMessage(err)}`);
      ex.logger.warn({ status: statusOf(err) }, 'bulk-update refused: top-ups are sent one by one');
      await forEachLimit(batch, EXECUTOR_WINDOW, (e) => e.fallback());
      return;
    }
    for (const e of batch)
      ex.report({
        kind: 'topup',
        externalId: e.externalId,
        outcome: 'failed',
        message: `bulk-update failed: ${errorMessage(err)}`,
      });
  }
}

export function updateTopUpsInBulk(ex: Execution, updates: readonly UpdateAction[]): Promise<void> {
  return runBulk(
    ex,
    updates.map((a) => {
      const body: Record<string, unknown> = {};
      for (const c of a.changes) body[c.field] = c.to;
      const { fields } = ex.fieldsToSend(a.desired);
      return {
        externalId: a.externalId,
        remoteId: a.remoteId,
        body,
        onOk: (offer) => {
          ex.applied(a.desired, offer, body, fields);
          ex.report({
            kind: 'topup',
            externalId: a.externalId,
            outcome: a.reason === 'adopted' ? 'adopted' : 'updated',
            file: a.desired.source.file,
            fields: Object.keys(body),
          });
        },
        fallback: () => ex.update(a),
      };
    }),
  );
}

export function bulkArchiveTopUps(ex: Execution, archives: readonly ArchiveAction[]): Promise<void> {
  return runBulk(
    ex,
    archives.map((a) => ({
      externalId: a.externalId,
      remoteId: a.remoteId,
      body: { status: 'archived' },
      onOk: () => archived(ex, a),
      fallback: () => archiveOne(ex, a),
    })),
  );
}
