// One suite for every StateStore: the sqlite file and PostgreSQL behave alike.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FencedWriteError, OFFER_EVENTS_KEPT, SEARCH_LIMIT_MAX } from '../../src/state/kysely-state-store.ts';
import type { OfferEventInput, OfferRecord, SaleRecord } from '../../src/state/records.ts';
import type { StateStore } from '../../src/state/state-store.ts';
import { STATE_BACKENDS } from '../support/state-backends.ts';
import { gather } from '../support/gather.ts';
import { VIEW_PAGE } from '../../src/state/offer-view.ts';

describe.each(STATE_BACKENDS.map((make) => make()))('$name state store', (backend) => {
  let now = 1_700_000_000_000;
  let store: StateStore;
  beforeAll(() => backend.setup(), 60_000);
  afterAll(() => backend.teardown());
  beforeEach(async () => {
    now = 1_700_000_000_000;
    store = await backend.open(() => now);
  });
  afterEach(() => store.close());

  describe('offers', () => {
    it('inserts with defaults for what the patch leaves out', async () => {
      const rec = await store.upsertOffer('item', 'sku-1', { remoteId: 7 });
      expect(rec).toEqual<OfferRecord>({
        kind: 'item',
        externalId: 'sku-1',
        remoteId: 7,
        lastApplied: null,
        credentialsHmac: null,
        imageHashes: [],
        contentHash: null,
        remoteStatus: null,
        remoteUpdatedAt: null,
        managed: false,
        sourceFile: null,
        lossyFields: [],
        soldCount: null,
        soldCountAtSend: null,
        loginFingerprint: null,
        updatedAt: now,
      });
      expect(await store.getOffer('item', 'sku-1')).toEqual(rec);
      expect(await store.getOffer('account', 'sku-1')).toBeUndefined();
    });

    it('round-trips every field', async () => {
      const full = {
        remoteId: 123,
        lastApplied: { title: 'Sword', price: 1999, tags: ['a', 'b'], nested: { x: 1 } },
        credentialsHmac: 'hmac-sha256:abc',
        imageHashes: ['a'.repeat(64), 'b'.repeat(64)],
        contentHash: 'c'.repeat(64),
        remoteStatus: 'listed',
        remoteUpdatedAt: 1_699_999_999_000,
        managed: true,
        sourceFile: 'items/weapons.csv',
        lossyFields: ['rank'],
        soldCount: 12,
        soldCountAtSend: 10,
        loginFingerprint: 'd'.repeat(64),
      };
      await store.upsertOffer('account', 'acc-1', full);
      expect(await store.getOffer('account', 'acc-1')).toEqual({
        kind: 'account',
        externalId: 'acc-1',
        ...full,
        updatedAt: now,
      });
      // A listed record parses its last-applied fields when read: compared as read.
      expect((await store.listOffers()).map((o) => ({ ...o, lastApplied: o.lastApplied }))).toEqual([
        await store.getOffer('account', 'acc-1'),
      ]);
    });

    it('reads the same records by key, in a listing and through the view, managed or not', async () => {
      await store.upsertOffer('item', 'kept', {
        remoteId: 1,
        managed: true,
        lastApplied: { price: 5 },
        lossyFields: ['x'],
      });
      await store.upsertOffer('item', 'foreign', {
        remoteId: 2,
        managed: false,
        remoteStatus: 'listed',
        sourceFile: 'a.csv',
      });
      const byKey = await Promise.all(['foreign', 'kept'].map((id) => store.getOffer('item', id)));
      const plain = (o: OfferRecord | undefined) => o && { ...o, lastApplied: o.lastApplied };
      expect(byKey.map((o) => o?.managed)).toEqual([false, true]);
      expect((await store.listOffers()).map(plain)).toEqual(byKey);
      expect((await store.listOffers('item')).map(plain)).toEqual(byKey);
      const view = await store.offerView();
      expect((await gather(view.pages())).map(plain)).toEqual(byKey);
      expect(plain(await view.get('item', 'foreign'))).toEqual(byKey[0]);
      expect((await view.getMany([['item', 'foreign']])).map(plain)).toEqual([byKey[0]]);
    });

    it('patches: unspecified fields keep their value, null clears, updatedAt moves', async () => {
      await store.upsertOffer('topup', 't1', {
        remoteId: 1,
        managed: true,
        lastApplied: { price: 100 },
        imageHashes: ['h'],
        lossyFields: ['x'],
        sourceFile: 'a.json',
      });
      now += 1000;
      const after = await store.upsertOffer('topup', 't1', {
        remoteStatus: 'sold',
        sourceFile: null,
        remoteId: undefined,
      });
      expect(after).toMatchObject({
        remoteId: 1,
        managed: true,
        lastApplied: { price: 100 },
        imageHashes: ['h'],
        lossyFields: ['x'],
        remoteStatus: 'sold',
        sourceFile: null,
        updatedAt: now,
      });
      now += 1000;
      expect(
        await store.upsertOffer('topup', 't1', { managed: false, lastApplied: null, imageHashes: [] }),
      ).toMatchObject({
        managed: false,
        lastApplied: null,
        imageHashes: [],
        remoteStatus: 'sold',
      });
      // An empty patch only touches updatedAt.
      now += 1000;
      expect(await store.upsertOffer('topup', 't1', {})).toMatchObject({
        remoteId: 1,
        remoteStatus: 'sold',
        updatedAt: now,
      });
    });

    it('lists all offers, or those of one kind, ordered by kind then external_id', async () => {
      for (const [kind, id] of [
        ['topup', 'b'],
        ['account', 'z'],
        ['item', 'a'],
        ['account', 'a'],
        ['topup', 'a'],
      ] as const)
        await store.upsertOffer(kind, id, {});
      expect((await store.listOffers()).map((o) => `${o.kind}/${o.externalId}`)).toEqual([
        'account/a',
        'account/z',
        'item/a',
        'topup/a',
        'topup/b',
      ]);
      expect((await store.listOffers('topup')).map((o) => o.externalId)).toEqual(['a', 'b']);
      expect(await store.listOffers('item')).toHaveLength(1);
    });

    it('keys by (kind, external_id), exactly as given', async () => {
      await store.upsertOffer('item', 'X1', { remoteId: 1 });
      await store.upsertOffer('item', 'x1', { remoteId: 2 });
      await store.upsertOffer('account', 'X1', { remoteId: 3 });
      await store.upsertOffer('item', '00042', { remoteId: 4 });
      expect((await store.listOffers()).map((o) => [o.kind, o.externalId, o.remoteId])).toEqual([
        ['account', 'X1', 3],
        ['item', '00042', 4],
        ['item', 'X1', 1],
        ['item', 'x1', 2],
      ]);
    });

    it('deletes', async () => {
      await store.upsertOffer('item', 'a', {});
      await store.deleteOffer('item', 'a');
      await store.deleteOffer('item', 'never-there');
      expect(await store.getOffer('item', 'a')).toBeUndefined();
    });

    it('upsertOffers applies a batch, patches included, and all or nothing', async () => {
      await store.upsertOffer('item', 'keep', { remoteId: 1, managed: true });
      await store.upsertOffers([
        { kind: 'item', externalId: 'keep', patch: { remoteStatus: 'listed' } },
        { kind: 'account', externalId: 'new', patch: { remoteId: 2 } },
      ]);
      expect(await store.getOffer('item', 'keep')).toMatchObject({
        remoteId: 1,
        managed: true,
        remoteStatus: 'listed',
      });
      expect((await store.getOffer('account', 'new'))?.remoteId).toBe(2);

      const bad = [
        { kind: 'item' as const, externalId: 'x', patch: { remoteId: 3 } },
        { kind: 'bogus' as unknown as 'item', externalId: 'y', patch: {} },
      ];
      await expect(store.upsertOffers(bad)).rejects.toThrow(/check constraint/i);
      expect(await store.getOffer('item', 'x')).toBeUndefined();
      await store.upsertOffers([]);
    });

    it('upsertOffers: an empty patch, first in a batch, only moves updatedAt', async () => {
      await store.upsertOffer('item', 'kept', { remoteId: 1, managed: true });
      now += 1000;
      await store.upsertOffers([
        { kind: 'item', externalId: 'kept', patch: {} },
        { kind: 'item', externalId: 'new', patch: {} },
      ]);
      expect(await store.getOffer('item', 'kept')).toMatchObject({ remoteId: 1, managed: true, updatedAt: now });
      expect(await store.getOffer('item', 'new')).toMatchObject({ remoteId: null, managed: false, updatedAt: now });
    });

    it('a run view answers by key, many at once in order asked, keys and records in order, managed count', async () => {
      await store.upsertOffer('item', 'b', {
        remoteId: 2,
        managed: true,
        remoteStatus: 'listed',
        lastApplied: { price: 5 },
      });
      await store.upsertOffer('item', 'a', { remoteId: 1, managed: true, remoteStatus: 'archived' });
      await store.upsertOffer('account', 'a', { remoteId: 3, managed: true });
      await store.upsertOffer('topup', 'x', { remoteId: 4, managed: false, remoteStatus: 'listed' });
      // More than one lookup batch of one kind, to cross the batch edge.
      await store.upsertOffers(
        Array.from({ length: 450 }, (_, i) => ({
          kind: 'topup' as const,
          externalId: `t${i}`,
          patch: { remoteId: 100 + i },
        })),
      );
      const view = await store.offerView();
      expect((await view.get('item', 'b'))?.lastApplied).toEqual({ price: 5 });
      expect(await view.get('item', 'zz')).toBeUndefined();
      expect(await view.get('topup', 'b')).toBeUndefined();
      const asked = [
        ['topup', 't449'],
        ['item', 'b'],
        ['item', 'nope'],
        ['account', 'a'],
        ['item', 'b'],
        ...Array.from({ length: 450 }, (_, i) => ['topup', `t${i}`] as const),
      ] as const;
      const got = await view.getMany(asked);
      expect(got.map((r) => r?.remoteId)).toEqual([
        549,
        2,
        undefined,
        3,
        2,
        ...Array.from({ length: 450 }, (_, i) => 100 + i),
      ]);
      expect(got[1]?.lastApplied).toEqual({ price: 5 });
      // One answer per key asked, a missing last one included.
      expect(
        (
          await view.getMany([
            ['item', 'b'],
            ['item', 'gone'],
          ])
        ).length,
      ).toBe(2);
      const keys = await gather(view.keyPages());
      expect(keys.slice(0, 3)).toEqual([
        ['account', 'a'],
        ['item', 'a'],
        ['item', 'b'],
      ]);
      expect((await gather(view.pages())).map((r) => [r.kind, r.externalId])).toEqual(keys);
      // Managed and not archived: a null status counts (never seen archived).
      expect(await view.countManaged()).toBe(2);
    });

    it('reads the view in keyset pages: every offer once, in the listing order, across page edges', async () => {
      const n = 2 * VIEW_PAGE + 5;
      await store.upsertOffers(
        Array.from({ length: n }, (_, i) => ({
          kind: (['topup', 'item', 'account'] as const)[i % 3]!,
          externalId: `p-${i}`,
          patch: { remoteId: i + 1, managed: true },
        })),
      );
      const listed = (await store.listOffers()).map((r) => [r.kind, r.externalId]);
      const view = await store.offerView();
      const pages: (readonly unknown[])[] = [];
      for await (const page of view.keyPages()) pages.push(page);
      expect(pages.map((p) => p.length)).toEqual([VIEW_PAGE, VIEW_PAGE, 5]);
      const keys = await gather(view.keyPages());
      expect(keys).toEqual(listed);
      expect((await gather(view.pages())).map((r) => [r.kind, r.externalId])).toEqual(listed);
      // A lookup of more keys than a page answers every one of them, in the order asked.
      const asked = [...keys].reverse();
      expect((await view.getMany(asked)).map((r) => r && [r.kind, r.externalId])).toEqual(asked);
      expect(await view.countManaged()).toBe(n);
    });

    // 25,000 offers: 50 upsert batches, past every bound on a statement's parameters of both databases.
    it('writes and reads 25,000 offers', async () => {
      const rows = Array.from({ length: 25_000 }, (_, i) => ({
        kind: (['account', 'item', 'topup'] as const)[i % 3] as 'account' | 'item' | 'topup',
        externalId: `ext-${String(i).padStart(6, '0')}`,
        patch: {
          remoteId: i + 1,
          managed: true,
          lastApplied: { title: `Offer ${i}`, price: i },
          imageHashes: i % 20 === 0 ? ['f'.repeat(64)] : [],
        },
      }));
      await store.upsertOffers(rows);
      const all = await store.listOffers();
      expect(all).toHaveLength(25_000);
      expect(all[0]).toMatchObject({
        kind: 'account',
        externalId: 'ext-000000',
        remoteId: 1,
        lastApplied: { title: 'Offer 0', price: 0 },
        imageHashes: ['f'.repeat(64)],
      });
      expect(new Set(all.map((o) => o.remoteId)).size).toBe(25_000);
      expect(await store.listOffers('item')).toHaveLength(8_333);
    }, 120_000);
  });

  describe('images', () => {
    it('puts, replaces and lists', async () => {
      await store.putImage({ sha256: 'b'.repeat(64), remoteId: 2, url: null, uploadedAt: 20 });
      await store.putImage({ sha256: 'a'.repeat(64), remoteId: 1, url: 'https://cdn/x.png', uploadedAt: 10 });
      expect(await store.getImage('a'.repeat(64))).toEqual({
        sha256: 'a'.repeat(64),
        remoteId: 1,
        url: 'https://cdn/x.png',
        uploadedAt: 10,
      });
      await store.putImage({ sha256: 'a'.repeat(64), remoteId: 9, url: null, uploadedAt: 30 });
      expect((await store.listImages()).map((i) => [i.remoteId, i.uploadedAt])).toEqual([
        [2, 20],
        [9, 30],
      ]);
      expect(await store.getImage('c'.repeat(64))).toBeUndefined();
    });
  });

  describe('journal', () => {
    it('walks pending -> sent -> done or failed; unfinished lists pending and sent in order', async () => {
      const a = await store.journalBegin({ runId: 'r1', op: 'create', kind: 'item', keys: ['sku-1'] });
      expect(a).toEqual({
        id: a.id,
        runId: 'r1',
        op: 'create',
        kind: 'item',
        keys: ['sku-1'],
        state: 'pending',
        error: null,
        createdAt: now,
        updatedAt: now,
      });
      const b = await store.journalBegin({ runId: 'r1', op: 'bulk-remove', kind: 'account', keys: ['a1', 'a2'] });
      const c = await store.journalBegin({ runId: 'r1', op: 'upload', kind: 'image', keys: ['f'.repeat(64)] });
      expect(b.id).toBeGreaterThan(a.id);
      now += 5;
      await store.journalSet(a.id, 'sent');
      await store.journalSet(b.id, 'sent');
      await store.journalSet(b.id, 'failed', '422: invalid');
      await store.journalSet(c.id, 'sent');
      expect((await store.journalUnfinished()).map((e) => [e.id, e.state, e.updatedAt])).toEqual([
        [a.id, 'sent', now],
        [c.id, 'sent', now],
      ]);
      await store.journalSet(a.id, 'done');
      await store.journalSet(c.id, 'done', 'settled at start');
      expect(await store.journalUnfinished()).toEqual([]);
      // An error stays unless a new one (or null) is given.
      await store.journalSet(b.id, 'failed');
      // Run r1 is not in the run history, so its settled entries go.
      expect(await store.pruneHistory()).toEqual({ runs: 0, journal: 3 });
    });

    it("keeps an entry's error until a new one or null is given", async () => {
      const e = await store.journalBegin({ runId: 'r1', op: 'update', kind: 'item', keys: ['sku-1'] });
      await store.journalSet(e.id, 'sent', '503: retrying');
      expect((await store.journalUnfinished()).map((u) => u.error)).toEqual(['503: retrying']);
      await store.journalSet(e.id, 'sent');
      expect((await store.journalUnfinished()).map((u) => u.error)).toEqual(['503: retrying']);
      await store.journalSet(e.id, 'pending', null);
      expect((await store.journalUnfinished()).map((u) => [u.state, u.error])).toEqual([['pending', null]]);
    });

    it('refuses to set an entry that does not exist', async () => {
      await expect(store.journalSet(999, 'done')).rejects.toThrow(/no journal entry 999/);
    });

    it('keeps the ids of a settled journal growing (AUTOINCREMENT)', async () => {
      const a = await store.journalBegin({ runId: 'r', op: 'update', kind: 'topup', keys: ['t'] });
      await store.journalSet(a.id, 'done');
      await store.pruneHistory();
      expect((await store.journalBegin({ runId: 'r', op: 'update', kind: 'topup', keys: ['t'] })).id).toBeGreaterThan(
        a.id,
      );
    });
  });

  describe('retention', () => {
    it('keeps the newest keepRuns runs and their settled journal entries; unfinished writes stay', async () => {
      const small = await backend.open(() => now, 3);
      try {
        const entries: Record<string, number[]> = {};
        for (let r = 1; r <= 5; r++) {
          now += 1000;
          await small.runStart(`run-${r}`, 'reconcile');
          entries[`run-${r}`] = [];
          for (const k of [0, 1]) {
            const e = await small.journalBegin({
              runId: `run-${r}`,
              op: 'update',
              kind: 'item',
              keys: [`sku-${r}-${k}`],
            });
            if (!(r === 1 && k === 0))
              await small.journalSet(e.id, k === 0 ? 'done' : 'failed', k === 0 ? null : '422');
            entries[`run-${r}`]?.push(e.id);
          }
          await small.runEnd(`run-${r}`, 'converged', {});
        }
        expect(await small.pruneHistory()).toEqual({ runs: 2, journal: 3 });
        expect((await small.listRuns(10)).map((r) => r.id)).toEqual(['run-5', 'run-4', 'run-3']);
        // The write run-1 never finished is still there to be settled at the next start.
        expect((await small.journalUnfinished()).map((e) => e.id)).toEqual([entries['run-1']![0]]);
        expect(await small.pruneHistory()).toEqual({ runs: 0, journal: 0 });
      } finally {
        small.close();
      }
    });

    it('refuses a keepRuns below 1', async () => {
      await expect(backend.open(() => now, 0)).rejects.toThrow(/keepRuns must be a whole number of at least 1/);
    });
  });

  describe('offer events', () => {
    const event = (externalId: string, type: OfferEventInput['type'], extra: Partial<OfferEventInput> = {}) =>
      ({
        kind: 'item',
        externalId,
        runId: 'run-1',
        at: now,
        type,
        route: null,
        changes: [],
        quantity: null,
        detail: null,
        answer: null,
        ...extra,
      }) satisfies OfferEventInput;

    it('keeps what was sent and answered, oldest first, apart by kind', async () => {
      const created = event('sku-1', 'created', {
        route: 'POST /api/v1/items',
        changes: [{ field: 'price', from: null, to: 1200 }],
        answer: { outcome: 'ok', status: 201, message: null },
      });
      const refused = event('sku-1', 'updated', {
        runId: 'run-2',
        at: now + 1000,
        route: 'PATCH /api/v1/items/:id',
        changes: [{ field: 'price', from: 1200, to: 1000, why: 'changed' }],
        answer: { outcome: 'refused', status: 422, message: 'price must be at least 1.00' },
      });
      const sold = event('sku-1', 'sold', { runId: 'run-3', at: now + 2000, quantity: 2 });
      await store.recordOfferEvents([created, refused]);
      await store.recordOfferEvents([sold, event('sku-1', 'adopted', { kind: 'topup' })]);
      const history = await store.offerHistory('item', 'sku-1', 10);
      expect(history.map(({ id: _, ...e }) => e)).toEqual([created, refused, sold]);
      expect(history[0]!.id).toBeLessThan(history[1]!.id);
      expect((await store.offerHistory('item', 'sku-1', 2)).map((e) => e.type)).toEqual(['updated', 'sold']);
      expect((await store.offerHistory('topup', 'sku-1', 10)).map((e) => e.type)).toEqual(['adopted']);
      expect(await store.offerHistory('account', 'sku-1', 10)).toEqual([]);
    });

    it('knows the kinds of an external_id from its events and from the offers', async () => {
      await store.recordOfferEvents([event('dup', 'created'), event('dup', 'created', { kind: 'topup' })]);
      await store.upsertOffer('account', 'dup', { remoteId: 1 });
      await store.upsertOffer('account', 'other', { remoteId: 2 });
      expect(await store.historyKinds('dup')).toEqual(['account', 'item', 'topup']);
      expect(await store.historyKinds('other')).toEqual(['account']);
      expect(await store.historyKinds('nobody')).toEqual([]);
    });

    it(`keeps each offer's newest ${OFFER_EVENTS_KEPT} events whatever run pruning drops`, async () => {
      const small = await backend.open(() => now, 1);
      try {
        for (let r = 1; r <= 3; r++) {
          await small.runStart(`run-${r}`, 'reconcile');
          const batch = Array.from({ length: 50 }, (_, i) =>
            event('busy', 'updated', { runId: `run-${r}`, detail: `${r}.${i}` }),
          );
          await small.recordOfferEvents([...batch, event(`quiet-${r}`, 'created', { runId: `run-${r}` })]);
          await small.runEnd(`run-${r}`, 'converged', {});
          await small.pruneHistory();
        }
        const busy = await small.offerHistory('item', 'busy', 1000);
        expect(busy).toHaveLength(OFFER_EVENTS_KEPT);
        expect(busy[0]!.detail).toBe('2.0');
        expect(busy.at(-1)!.detail).toBe('3.49');
        // Pruned runs take none of their offers' events with them.
        expect((await small.listRuns(10)).map((r) => r.id)).toEqual(['run-3']);
        for (const r of [1, 2, 3]) expect(await small.offerHistory('item', `quiet-${r}`, 10)).toHaveLength(1);
      } finally {
        await small.close();
      }
    });

    it('records the events of 20,000 offers in one call, each once (a first run adopting them)', async () => {
      // 50 batches of 400, the last ending the list exactly; pruned 400 offers a statement, where all 20,000 at
      // once (40,000 parameters) would be over sqlite's 32,766.
      const n = 20_000;
      await store.recordOfferEvents(Array.from({ length: n }, (_, i) => event(`big-${i}`, 'adopted')));
      for (const i of [0, 399, 400, n - 1])
        expect((await store.offerHistory('item', `big-${i}`, 10)).map((e) => e.type)).toEqual(['adopted']);
    }, 60_000);

    it("records a call's events all or none: one refused in a later batch leaves none of the earlier", async () => {
      const bad = event('bad', 'created', { kind: 'bogus' as unknown as 'item' });
      const events = [...Array.from({ length: 400 }, (_, i) => event(`ok-${i}`, 'created')), bad];
      await expect(store.recordOfferEvents(events)).rejects.toThrow(/check constraint/i);
      expect(await store.offerHistory('item', 'ok-0', 10)).toEqual([]);
      expect(await store.historyKinds('ok-399')).toEqual([]);
    });

    it('finds offers by external_id or title, any case, exact then prefix then inside, bounded', async () => {
      await store.upsertOffer('item', 'lol-euw-0042', { remoteId: 42, title: 'Gold 1000', remoteStatus: 'active' });
      await store.upsertOffer('account', 'lol-euw-0042x', { remoteId: 43, title: 'Diamond smurf' });
      await store.upsertOffer('topup', 'gems', { remoteId: 44, title: 'LOL-EUW gems 100%' });
      await store.upsertOffer('item', 'x-lol-euw', { remoteId: 45 });
      expect((await store.searchOffers('LOL-EUW-0042')).map((h) => h.externalId)).toEqual([
        'lol-euw-0042',
        'lol-euw-0042x',
      ]);
      expect(await store.searchOffers('gold')).toEqual([
        { kind: 'item', externalId: 'lol-euw-0042', title: 'Gold 1000', remoteId: 42, remoteStatus: 'active' },
      ]);
      expect((await store.searchOffers('lol-euw')).map((h) => h.externalId)).toEqual([
        'lol-euw-0042x',
        'lol-euw-0042',
        'gems',
        'x-lol-euw',
      ]);
      // % and _ are letters here, not patterns.
      expect((await store.searchOffers('100%')).map((h) => h.externalId)).toEqual(['gems']);
      expect(await store.searchOffers('_')).toEqual([]);
      expect(await store.searchOffers('  ')).toEqual([]);
      expect(await store.searchOffers('lol', 1)).toHaveLength(1);
      for (let i = 0; i < SEARCH_LIMIT_MAX + 5; i++) await store.upsertOffer('item', `bulk-${i}`, { remoteId: i });
      expect(await store.searchOffers('bulk', 10_000)).toHaveLength(SEARCH_LIMIT_MAX);
    });

    it('finds by a query with spaces around it, and says null for an offer with no remote id yet', async () => {
      await store.upsertOffer('item', 'gold-1', { title: 'Gold pack' });
      expect(await store.searchOffers('  GOLD-1 \n')).toEqual([
        { kind: 'item', externalId: 'gold-1', title: 'Gold pack', remoteId: null, remoteStatus: null },
      ]);
    });

    it('keeps the title an upsert gave until another is given', async () => {
      await store.upsertOffer('item', 'sku', { remoteId: 1, title: 'Sword' });
      await store.upsertOffer('item', 'sku', { remoteStatus: 'active' });
      expect((await store.searchOffers('sword')).map((h) => h.externalId)).toEqual(['sku']);
    });
  });

  describe('sales', () => {
    const sale = (i: number, key: string | null): SaleRecord => ({
      kind: 'item',
      externalId: `sku-${i}`,
      seenAt: 1_000 + i,
      key,
      entry: { external_id: `sku-${i}`, quantity: 1 },
    });

    it('keeps a keyed sale once whatever run tells of it again, and every sale with no key', async () => {
      // One batch of 500 exactly, then the same again: nothing new.
      const keyed = Array.from({ length: 500 }, (_, i) => sale(i, `key-${i}`));
      await store.recordSales(keyed);
      await store.recordSales(keyed);
      expect(await store.countSales(0)).toBe(500);
      // Lines older than the sale key: 501, over two batches, each kept once.
      await store.recordSales(Array.from({ length: 501 }, (_, i) => sale(1_000 + i, null)));
      expect(await store.countSales(0)).toBe(1_001);
      expect(await store.countSales(2_000)).toBe(501);
    });

    it('lists the sales seen since a time, oldest first, at most as many as asked', async () => {
      await store.recordSales([sale(3, 'c'), sale(1, 'a'), sale(2, 'b'), sale(0, 'z')]);
      expect((await store.listSales(1_001)).map((s) => s.key)).toEqual(['a', 'b', 'c']);
      expect((await store.listSales(1_001, 2)).map((s) => s.key)).toEqual(['a', 'b']);
      expect((await store.listSales(0, 2.9)).map((s) => s.key)).toEqual(['z', 'a']);
      expect(await store.listSales(0, 0)).toEqual([]);
      expect(await store.listSales(0, -1)).toEqual([]);
      expect((await store.listSales(1_003, 5))[0]).toEqual(sale(3, 'c'));
    });
  });

  describe('capabilities', () => {
    it('remembers what was learnt, and when', async () => {
      expect(await store.getCapability('PATCH /accounts/{id}')).toBeUndefined();
      await store.setCapability('PATCH /accounts/{id}', false, '405: Method Not Allowed');
      now += 10;
      await store.setCapability('POST /top-ups/bulk-update {offers}', true);
      expect(await store.listCapabilities()).toEqual([
        { name: 'PATCH /accounts/{id}', usable: false, detail: '405: Method Not Allowed', learntAt: now - 10 },
        { name: 'POST /top-ups/bulk-update {offers}', usable: true, detail: null, learntAt: now },
      ]);
      await store.setCapability('PATCH /accounts/{id}', true, null);
      expect(await store.getCapability('PATCH /accounts/{id}')).toEqual({
        name: 'PATCH /accounts/{id}',
        usable: true,
        detail: null,
        learntAt: now,
      });
    });
  });

  describe('runs', () => {
    it('starts, ends, and lists newest first', async () => {
      await store.runStart('r1', 'reconcile');
      now += 1000;
      await store.runStart('r2', 'daemon');
      now += 500;
      await store.runEnd('r1', 'converged', { 'item.created': 3, 'account.failed': 0 });
      expect(await store.listRuns(10)).toEqual([
        { id: 'r2', command: 'daemon', startedAt: now - 500, endedAt: null, outcome: 'running', counts: {} },
        {
          id: 'r1',
          command: 'reconcile',
          startedAt: now - 1500,
          endedAt: now,
          outcome: 'converged',
          counts: { 'item.created': 3, 'account.failed': 0 },
        },
      ]);
      expect((await store.listRuns(1)).map((r) => r.id)).toEqual(['r2']);
      expect(await store.listRuns(0)).toEqual([]);
      await expect(store.runEnd('nope', 'failed', {})).rejects.toThrow(/no run nope/);
    });
  });

  describe('meta', () => {
    it('gets and sets, and keeps the schema version to the migrations', async () => {
      expect(await store.getMeta('watermark.item')).toBeUndefined();
      await store.setMeta('watermark.item', '1700000000000');
      await store.setMeta('watermark.item', '1700000001000');
      expect(await store.getMeta('watermark.item')).toBe('1700000001000');
      await expect(store.setMeta('schema_version', '7')).rejects.toThrow(/belongs to the migrations/);
    });
  });

  describe('transaction', () => {
    it('commits what fn wrote and returns its value', async () => {
      const n = await store.transaction(async (tx) => {
        await tx.upsertOffer('item', 'a', {});
        await tx.setMeta('k', 'v');
        return 2;
      });
      expect(n).toBe(2);
      expect(await store.getOffer('item', 'a')).toBeDefined();
    });

    it('rolls everything back when fn throws, and rethrows', async () => {
      await store.upsertOffer('item', 'kept', { remoteId: 1 });
      const boom = new Error('boom');
      await expect(
        store.transaction(async (tx) => {
          await tx.upsertOffer('item', 'kept', { remoteId: 2 });
          await tx.deleteOffer('item', 'kept');
          await tx.upsertOffer('item', 'new', {});
          await tx.journalBegin({ runId: 'r', op: 'create', kind: 'item', keys: ['new'] });
          throw boom;
        }),
      ).rejects.toThrow(boom);
      expect((await store.listOffers()).map((o) => [o.externalId, o.remoteId])).toEqual([['kept', 1]]);
      expect(await store.journalUnfinished()).toEqual([]);
    });

    it('nests: an inner failure caught inside keeps the outer work', async () => {
      await store.transaction(async (tx) => {
        await tx.upsertOffer('item', 'outer', {});
        try {
          await tx.transaction(async (inner) => {
            await inner.upsertOffer('item', 'inner', {});
            throw new Error('inner');
          });
        } catch {
          // the inner savepoint rolled back
        }
      });
      expect((await store.listOffers()).map((o) => o.externalId)).toEqual(['outer']);
    });

    it('nests: a savepoint that succeeds commits with the outer work; an outer failure undoes both', async () => {
      const got = await store.transaction(async (tx) => {
        await tx.upsertOffer('item', 'outer', {});
        const first = await tx.transaction(async (inner) => {
          await inner.upsertOffer('item', 'inner-1', {});
          return 'first';
        });
        const second = await tx.transaction(async (inner) => {
          await inner.upsertOffer('item', 'inner-2', {});
          return 'second';
        });
        return [first, second];
      });
      expect(got).toEqual(['first', 'second']);
      const ids = async () => (await store.listOffers()).map((o) => o.externalId);
      expect(await ids()).toEqual(['inner-1', 'inner-2', 'outer']);
      await expect(
        store.transaction(async (tx) => {
          await tx.transaction(async (inner) => await inner.upsertOffer('item', 'undone', {}));
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
      expect(await ids()).toEqual(['inner-1', 'inner-2', 'outer']);
    });

    it('returns objects and null as fn resolves them', async () => {
      // biome-ignore lint/suspicious/noThenProperty: a 'then' that is no function, under test
      const obj = { then: 'not a function' };
      expect(await store.transaction(async () => obj)).toBe(obj);
      expect(await store.transaction(async () => null)).toBeNull();
    });
  });

  describe('lease', () => {
    it('shows the lease as stored through the interface: none, the holder once taken, none once let go', async () => {
      const claim = { holder: 'replica-a', pid: 42, hostname: 'host-a', scope: '' };
      expect(await store.currentLease()).toBeUndefined();
      const taken = await store.acquireLease(claim, 60_000);
      expect(taken.ok).toBe(true);
      expect(await store.currentLease()).toEqual({ ...claim, expiresAt: taken.ok ? taken.expiresAt : Number.NaN });
      await store.releaseLease('replica-a');
      expect(await store.currentLease()).toBeUndefined();
    });

    it('grows its epoch across releases: a holder resumed after another took and let go renews nothing', async () => {
      const claim = (holder: string) => ({ holder, pid: 42, hostname: 'host-a', scope: '' });
      const first = await store.acquireLease(claim('paused'), 60_000);
      expect(first).toMatchObject({ ok: true, epoch: 1 });
      await store.releaseLease('paused');
      expect(await store.acquireLease(claim('other'), 60_000)).toMatchObject({ ok: true, epoch: 2 });
      await store.releaseLease('other');
      expect(await store.renewLease('paused', 1, 60_000)).toEqual({ ok: false, heldBy: null });
      expect(await store.currentLease()).toBeUndefined();
      expect(await store.acquireLease(claim('paused'), 60_000)).toMatchObject({ ok: true, epoch: 3 });
      expect(await store.renewLease('paused', 3, 60_000)).toMatchObject({ ok: true });
    });

    it('counts the creates the journal holds that may have made an offer, by external_id', async () => {
      for (const [key, state] of [
        ['a-1', 'done'],
        ['a-1', 'sent'],
        ['a-1', 'failed'],
        ['a-2', 'done'],
      ] as const) {
        const e = await store.journalBegin({ runId: 'r', op: 'create', kind: 'account', keys: [key] });
        await store.journalSet(e.id, state);
      }
      const counts = await store.journalCreateCounts('account', ['a-1', 'a-2', 'a-3']);
      expect(Object.fromEntries(counts)).toEqual({ 'a-1': 2, 'a-2': 1 });
      expect((await store.journalCreateCounts('item', ['a-1'])).size).toBe(0);
    });
  });

  describe('fencing', () => {
    it('refuses to journal a write once the lease it won is let go: FencedWriteError, nothing kept', async () => {
      const claim = { holder: 'replica-a', pid: 42, hostname: 'host-a', scope: '' };
      const write = () => store.journalBegin({ runId: 'r', op: 'update', kind: 'item', keys: ['sku-1'] });
      expect((await store.acquireLease(claim, 60_000)).ok).toBe(true);
      expect((await write()).state).toBe('pending');
      await store.releaseLease('replica-a');
      const err = await write().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FencedWriteError);
      expect((err as FencedWriteError).name).toBe('FencedWriteError');
      expect((err as FencedWriteError).holder).toBe('replica-a');
      expect(await store.journalUnfinished()).toHaveLength(1);
    });
  });

  describe('interface', () => {
    it('is a StateStore', () => {
      const s: StateStore = store;
      expect(typeof s.acquireLease).toBe('function');
    });
  });
});
