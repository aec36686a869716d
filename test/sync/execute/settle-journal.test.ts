// Settling at start what a crash left in the journal: an interrupted create is looked up before anything is
// written, and only what the lookup says decides (docs/architecture.md, Journal).
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log/logger.ts';
import { settleJournal } from '../../../src/sync/execute/settle-journal.ts';
import { ext } from '../../marketplace/support/contract.ts';
import { captureLog } from '../../support/log-capture.ts';
import { itemBody } from '../../support/offers.ts';
import { useSandboxRun } from '../support/sandbox-run.ts';

const { sandbox, raw, rec, store } = useSandboxRun();

async function interrupted(
  op: 'create' | 'update' | 'recreate' | 'upload',
  externalId: string,
  kind: 'item' | 'image' = 'item',
): Promise<number> {
  const entry = await store.journalBegin({ runId: 'crashed-run', op, kind, keys: [externalId] });
  await store.journalSet(entry.id, 'sent');
  return entry.id;
}

describe('settling the journal at start', () => {
  it('adopts an interrupted create that did land, found by its external_id', async () => {
    const e = ext('i');
    const live = await raw.items.create(itemBody(e));
    await interrupted('create', e);
    const out = await settleJournal(store, rec.client, silentLogger);
    expect(rec.calls).toEqual(['items.findByExternalId']);
    expect(out).toEqual({ settled: 1, adopted: 1, unsettled: [] });
    expect(await store.getOffer('item', e)).toMatchObject({ remoteId: live.id, managed: true, lastApplied: null });
    expect(await store.journalUnfinished()).toEqual([]);
  });

  it('forgets an interrupted create the lookup proves absent, so the plan creates it', async () => {
    const e = ext('i');
    await interrupted('create', e);
    const out = await settleJournal(store, rec.client, silentLogger);
    expect(rec.calls).toEqual(['items.findByExternalId']);
    expect(out).toEqual({ settled: 1, adopted: 0, unsettled: [] });
    expect(await store.getOffer('item', e)).toBeUndefined();
    expect(await store.journalUnfinished()).toEqual([]);
  });

  it('leaves the entry unfinished and its key unconfirmed when the lookup fails', async () => {
    const e = ext('i');
    const id = await interrupted('create', e);
    sandbox.setFaults({ errorRate: 1 });
    const log = captureLog('warn');
    const out = await settleJournal(store, rec.client, log.logger);
    expect(out).toEqual({ settled: 0, adopted: 0, unsettled: [`item:${e}`] });
    expect((await store.journalUnfinished()).map((j) => j.id)).toEqual([id]);
    // The operator is told which entry waits for the next start, and why.
    expect(log.find('could not settle an interrupted create: retried next start')).toEqual([
      expect.objectContaining({ level: 40, journal: id, err: expect.any(String) }),
    ]);
  });

  it('closes other interrupted writes without a request: the fresh snapshot shows what they did', async () => {
    await interrupted('update', ext('i'));
    const out = await settleJournal(store, rec.client, silentLogger);
    expect(rec.calls).toEqual([]);
    expect(out.settled).toBe(1);
    expect(await store.journalUnfinished()).toEqual([]);
  });

  it('looks up an interrupted re-create as a create, and keeps what was applied to the same offer', async () => {
    const e = ext('i');
    const live = await raw.items.create(itemBody(e));
    await store.upsertOffer('item', e, { remoteId: live.id, lastApplied: { price: 250 }, managed: true });
    await interrupted('recreate', e);
    const out = await settleJournal(store, rec.client, silentLogger);
    expect(rec.calls).toEqual(['items.findByExternalId']);
    expect(out).toEqual({ settled: 1, adopted: 1, unsettled: [] });
    expect(await store.getOffer('item', e)).toMatchObject({
      remoteId: live.id,
      lastApplied: { price: 250 },
      remoteStatus: 'listed',
    });
  });

  it('forgets what was applied to another offer of that external_id', async () => {
    const e = ext('i');
    const live = await raw.items.create(itemBody(e));
    await store.upsertOffer('item', e, { remoteId: live.id + 1000, lastApplied: { price: 250 }, managed: false });
    await interrupted('create', e);
    await settleJournal(store, rec.client, silentLogger);
    expect(await store.getOffer('item', e)).toMatchObject({ remoteId: live.id, lastApplied: null, managed: true });
  });

  it('closes an interrupted image upload without a lookup (an image has no external_id)', async () => {
    await interrupted('upload', 'sha-1', 'image');
    const out = await settleJournal(store, rec.client, silentLogger);
    expect(rec.calls).toEqual([]);
    expect(out).toEqual({ settled: 1, adopted: 0, unsettled: [] });
  });

  it("tells an adoption in the offer's story, under the run the crash interrupted", async () => {
    const e = ext('i');
    await raw.items.create(itemBody(e));
    await interrupted('create', e);
    const before = Date.now();
    await settleJournal(store, rec.client, silentLogger);
    const story = await store.offerHistory('item', e, 10);
    expect(story).toEqual([
      expect.objectContaining({
        type: 'adopted',
        runId: 'crashed-run',
        route: null,
        detail: 'a create a crash interrupted had landed: adopted at the next start',
      }),
    ]);
    expect(story[0]!.at).toBeGreaterThanOrEqual(before);
  });

  it('an interrupted create the lookup proves absent tells nothing in the story', async () => {
    const e = ext('i');
    await interrupted('create', e);
    await settleJournal(store, rec.client, silentLogger);
    expect(await store.offerHistory('item', e, 10)).toEqual([]);
  });
});
