// The group commit of the hot state writes, on a real sqlite file read from a second connection (what another
// process, or the next start after a kill, would see): writes asked at once share one batch, each answers only
// once its batch committed, and an op at fault fails alone. Then a reconcile against the sandbox, checking at
// each create the marketplace receives that its journal row was already committed as sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import type { HotStatements } from '../../src/state/hot-ops.ts';
import { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import type { JournalState } from '../../src/state/records.ts';
import { FILE_SELLER, openSqliteStateDatabase } from '../../src/state/sqlite-state-database.ts';
import type { StateDatabase } from '../../src/state/state-database.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { recordingClient } from '../support/recording-client.ts';

const dirs: string[] = [];
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A store on a sqlite file whose batches are counted (the real statements still run them). */
async function countedStore() {
  const dir = mkdtempSync(join(tmpdir(), 'offersync-group-'));
  dirs.push(dir);
  const path = join(dir, 'state.db');
  const { database } = await openSqliteStateDatabase(path);
  const batches: number[] = [];
  const hot: HotStatements = {
    run: (seller, ops) => {
      batches.push(ops.length);
      return database.hot.run(seller, ops);
    },
  };
  const counted: StateDatabase = {
    dialect: database.dialect,
    db: database.db,
    where: database.where,
    clock: (now) => database.clock(now),
    offerView: (seller) => database.offerView(seller),
    close: () => database.close(),
    hot,
  };
  const store = new KyselyStateStore(counted, FILE_SELLER, { ownsDatabase: true });
  const other = new BetterSqlite3(path, { readonly: true });
  const committed = (state: string) =>
    (other.prepare('SELECT count(*) AS n FROM journal WHERE state = ?').get(state) as { n: number }).n;
  const close = async () => {
    other.close();
    await store.close();
  };
  return { store, batches, committed, close };
}

describe('group commit', () => {
  it('journals writes asked at once in one batch, each committed before it answers', async () => {
    const s = await countedStore();
    try {
      const seenAtAnswer: number[] = [];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.store
            .journalBegin({ runId: 'r1', op: 'create', kind: 'item', keys: [`it-${i}`], state: 'sent' })
            .then(() => seenAtAnswer.push(s.committed('sent'))),
        ),
      );
      expect(s.batches).toEqual([20]);
      // Every answer came after the whole batch was visible to another connection.
      expect(seenAtAnswer).toEqual(Array.from({ length: 20 }, () => 20));
    } finally {
      await s.close();
    }
  });

  it('fails only the op at fault when a batch is refused; the others commit', async () => {
    const s = await countedStore();
    try {
      const first = await s.store.journalBegin({ runId: 'r1', op: 'create', kind: 'item', keys: ['a'] });
      const results = await Promise.allSettled([
        s.store.journalBegin({ runId: 'r1', op: 'create', kind: 'item', keys: ['b'], state: 'sent' }),
        // Refused by the table's CHECK: the whole batch rolls back, then each op runs again on its own.
        s.store.journalSet(first.id, 'lost' as JournalState),
        s.store.upsertOffer('item', 'b', { remoteId: 7, managed: true }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(s.committed('sent')).toBe(1);
      expect(s.committed('pending')).toBe(1);
      expect((await s.store.getOffer('item', 'b'))?.remoteId).toBe(7);
    } finally {
      await s.close();
    }
  });

  it("writes offers' events in the batch of the writes asked with them, a bad one failing alone", async () => {
    const s = await countedStore();
    try {
      const event = (externalId: string, kind = 'item') => ({
        kind: kind as 'item',
        externalId,
        runId: 'r1',
        at: 1,
        type: 'created' as const,
        route: null,
        changes: [],
        quantity: null,
        detail: null,
        answer: null,
      });
      const results = await Promise.allSettled([
        s.store.journalBegin({ runId: 'r1', op: 'create', kind: 'item', keys: ['a'], state: 'sent' }),
        s.store.recordOfferEvents([event('a'), event('b')]),
        // Refused by the table's CHECK: none of its events are kept, the others' are.
        s.store.recordOfferEvents([event('c'), event('d', 'bogus')]),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      // One batch for all three, then each again on its own once the batch was refused.
      expect(s.batches).toEqual([3, 1, 1, 1]);
      expect(s.committed('sent')).toBe(1);
      expect((await s.store.offerHistory('item', 'b', 10)).map((e) => e.type)).toEqual(['created']);
      expect(await s.store.offerHistory('item', 'c', 10)).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe('a create against the sandbox', () => {
  it('is sent only after its journal row was committed as sent', async () => {
    h = await createHarness();
    const items = Array.from({ length: 30 }, (_, i) => ({
      external_id: `it-${i}`,
      title: `It ${i}`,
      price: 500 + i,
      stock: 1,
    }));
    h.write('items/i.json', JSON.stringify(items));
    const statePath = h.statePath;
    const checked: string[] = [];
    // The real client, its calls observed as they start: each create is checked before it leaves.
    const wrap = (client: MarketplaceClient) =>
      recordingClient(client, (resource, method, args) => {
        if (resource === 'items' && method === 'create') {
          // What a process started now would find: only committed rows.
          const other = new BetterSqlite3(statePath, { readonly: true });
          try {
            const externalId = String((args[0] as { external_id?: unknown }).external_id);
            const row = other
              .prepare("SELECT state FROM journal WHERE op = 'create' AND keys = ?")
              .get(JSON.stringify([externalId])) as { state: string } | undefined;
            if (row?.state === 'sent') checked.push(externalId);
          } finally {
            other.close();
          }
        }
        return `${resource}.${method}`;
      }).client;
    const { report } = await h.reconcile({}, undefined, wrap);
    expect(report.outcomes.filter((o) => o.outcome !== 'created')).toEqual([]);
    expect(report.outcome).toBe('converged');
    expect(checked.sort()).toEqual(items.map((i) => i.external_id).sort());
  });
});
