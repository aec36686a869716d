// A write's last step as one hot op (applyOffer): its journal entry settled done and the offer recorded from
// what the state held of it, in one batch and one commit, on sqlite and on PostgreSQL. Then a reconcile of
// creates against the sandbox: each create's settlement and record go as that one op, none as a separate
// journal update, offer read and upsert (three commits where one does).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HotOp, HotStatements } from '../../src/state/hot-ops.ts';
import { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { openPostgresStateDatabase } from '../../src/state/postgres-state-database.ts';
import type { OfferRecord } from '../../src/state/records.ts';
import { FILE_SELLER, openSqliteStateDatabase } from '../../src/state/sqlite-state-database.ts';
import type { StateDatabase } from '../../src/state/state-database.ts';
import { openServices } from '../../src/cli/services.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { reconcile } from '../../src/sync/reconciler.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';

const dirs: string[] = [];
let server: TestPostgres | undefined;
let h: Harness | undefined;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The database with the ops of each hot batch noted (the real statements still run them). */
function counted(database: StateDatabase, batches: HotOp['op'][][]): StateDatabase {
  const hot: HotStatements = {
    run: (seller, ops) => {
      batches.push(ops.map((o) => o.op));
      return database.hot.run(seller, ops);
    },
  };
  return {
    dialect: database.dialect,
    db: database.db,
    where: database.where,
    clock: (now) => database.clock(now),
    offerView: (seller) => database.offerView(seller),
    close: () => database.close(),
    hot,
  };
}

const engines = {
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-apply-'));
    dirs.push(dir);
    return { database: (await openSqliteStateDatabase(join(dir, 'state.db'))).database, seller: FILE_SELLER };
  },
  postgres: async () => {
    const url = await server!.createDatabase();
    return { database: (await openPostgresStateDatabase({ url })).database, seller: 'shop-1' };
  },
};

describe.each(Object.keys(engines) as (keyof typeof engines)[])('applyOffer on %s', (engine) => {
  it('settles the journal entry and records the offer from the stored one, in one batch', async () => {
    const { database, seller } = await engines[engine]();
    const batches: HotOp['op'][][] = [];
    const store = new KyselyStateStore(counted(database, batches), seller, { ownsDatabase: true });
    try {
      const entry = await store.journalBegin({
        runId: 'r1',
        op: 'create',
        kind: 'item',
        keys: ['it-1'],
        state: 'sent',
      });
      await store.upsertOffer('item', 'it-1', { remoteId: 5, soldCount: 2, managed: true });
      batches.length = 0;
      const seen: (OfferRecord | undefined)[] = [];
      await store.applyOffer(
        'item',
        'it-1',
        (stored) => {
          seen.push(stored);
          return { remoteId: 6, soldCount: (stored?.soldCount ?? 0) + 1 };
        },
        entry.id,
      );
      expect(batches).toEqual([['offer-apply']]);
      expect(seen.map((s) => s?.remoteId)).toEqual([5]);
      expect(await store.getOffer('item', 'it-1')).toMatchObject({ remoteId: 6, soldCount: 3, managed: true });
      expect(await store.journalUnfinished()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('inserts the offer whole, then updates only the columns of a later patch', async () => {
    const { database, seller } = await engines[engine]();
    const store = new KyselyStateStore(database, seller, { ownsDatabase: true });
    try {
      const entry = await store.journalBegin({
        runId: 'r1',
        op: 'create',
        kind: 'item',
        keys: ['it-1', 'it-2'],
        state: 'sent',
      });
      expect(await store.journalUnfinished()).toEqual([entry]);
      const whole = {
        remoteId: 7,
        lastApplied: { title: 'A', price: 1234 },
        imageHashes: ['h1'],
        remoteStatus: 'active',
        remoteUpdatedAt: 1_700_000_000_123,
        managed: true,
        sourceFile: 'items/a.json',
        soldCount: 0,
        soldCountAtSend: 0,
      };
      await store.applyOffer('item', 'it-1', () => ({ ...whole, title: 'A' }));
      // The title is stored for search, not read back into a record.
      expect(await store.getOffer('item', 'it-1')).toMatchObject(whole);
      // Only some columns change: the others keep what was stored.
      await store.applyOffer(
        'item',
        'it-1',
        (stored) => ({ remoteId: 8, soldCount: (stored?.soldCount ?? 0) + 2, lastApplied: null }),
        entry.id,
      );
      expect(await store.getOffer('item', 'it-1')).toMatchObject({
        remoteId: 8,
        soldCount: 2,
        lastApplied: null,
        imageHashes: ['h1'],
        remoteStatus: 'active',
        managed: true,
        sourceFile: 'items/a.json',
      });
      expect(await store.journalUnfinished()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('records an offer not stored before, many at once, and fails the one whose journal entry is missing', async () => {
    const { database, seller } = await engines[engine]();
    const batches: HotOp['op'][][] = [];
    const store = new KyselyStateStore(counted(database, batches), seller, { ownsDatabase: true });
    try {
      const entries = await Promise.all(
        [0, 1, 2].map((i) =>
          store.journalBegin({ runId: 'r1', op: 'create', kind: 'item', keys: [`it-${i}`], state: 'sent' }),
        ),
      );
      batches.length = 0;
      const results = await Promise.allSettled([
        ...entries.map((e, i) =>
          store.applyOffer('item', `it-${i}`, (stored) => ({ remoteId: stored ? -1 : 10 + i }), e.id),
        ),
        store.applyOffer('item', 'it-9', () => ({ remoteId: 99 }), 1_000_000),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
      expect(batches[0]).toEqual(['offer-apply', 'offer-apply', 'offer-apply', 'offer-apply']);
      for (const i of [0, 1, 2]) expect((await store.getOffer('item', `it-${i}`))?.remoteId).toBe(10 + i);
      expect(await store.journalUnfinished()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('a reconcile of creates against the sandbox', () => {
  it('settles each create and records its offer as one op', async () => {
    h = await createHarness();
    const items = Array.from({ length: 20 }, (_, i) => ({
      external_id: `it-${i}`,
      title: `It ${i}`,
      price: 500 + i,
      stock: 1,
    }));
    h.write('items/i.json', JSON.stringify(items));
    const services = await openServices(h.config, { logger: silentLogger });
    const calls: string[] = [];
    const store = services.reconcileDeps.store;
    // The store's calls noted as they are made, each run by the store itself.
    const noted = new Proxy(store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    try {
      const { report } = await reconcile(
        { ...services.reconcileDeps, store: noted },
        { command: 'test', dryRun: false },
      );
      expect(report.outcomes.filter((o) => o.outcome !== 'created')).toEqual([]);
      expect(report.outcome).toBe('converged');
      expect(calls.filter((c) => c === 'applyOffer')).toHaveLength(20);
      expect(calls.filter((c) => ['journalSet', 'getOffer', 'upsertOffer'].includes(c))).toEqual([]);
      expect(await store.journalUnfinished()).toEqual([]);
    } finally {
      await services.close();
    }
  });
});
