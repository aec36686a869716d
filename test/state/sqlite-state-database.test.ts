// The sqlite file under the store: the lock wait it is opened with, the statements it prepares once, and its
// view's keyset pages at their edges (an empty file, a page filled exactly).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VIEW_PAGE } from '../../src/state/offer-view.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { FILE_SELLER, openSqliteStateDatabase, preparedOnce } from '../../src/state/sqlite-state-database.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-sqlite-db-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('openSqliteStateDatabase', () => {
  it("waits 5000 ms for another process's write lock unless told otherwise", async () => {
    const busyTimeout = async (opts?: { busyTimeoutMs: number }) => {
      const { database } = await openSqliteStateDatabase(join(dir, 'state.db'), opts);
      try {
        const r = await sql<{ timeout: number }>`PRAGMA busy_timeout`.execute(database.db);
        return r.rows[0]?.timeout;
      } finally {
        await database.close();
      }
    };
    expect(await busyTimeout()).toBe(5000);
    expect(await busyTimeout({ busyTimeoutMs: 250 })).toBe(250);
    expect(await busyTimeout({ busyTimeoutMs: 0 })).toBe(0);
  });
});

describe('preparedOnce', () => {
  it('prepares each SQL text once and reuses it: a daemon does not grow a statement per query', () => {
    const raw = new BetterSqlite3(':memory:');
    const db = preparedOnce(raw);
    const first = db.prepare('SELECT 1');
    expect(db.prepare('SELECT 1')).toBe(first);
    expect(db.prepare('SELECT 2')).not.toBe(first);
    expect(raw.open).toBe(true);
    db.close();
    expect(raw.open).toBe(false);
  });
});

describe("the sqlite file's offer view", () => {
  it('an empty file has no pages, not an empty one, and nothing managed', async () => {
    const store = await openStateStore(join(dir, 'state.db'));
    try {
      const view = await store.offerView();
      expect(await collect(view.keyPages())).toEqual([]);
      expect(await collect(view.pages())).toEqual([]);
      expect(await view.countManaged()).toBe(0);
      expect(await view.get('item', 'a')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a last page filled exactly is followed by no empty page', async () => {
    const store = await openStateStore(join(dir, 'state.db'));
    try {
      await store.upsertOffers(
        Array.from({ length: VIEW_PAGE }, (_, i) => ({
          kind: 'item' as const,
          externalId: `sku-${String(i).padStart(5, '0')}`,
          patch: { managed: i % 2 === 0 },
        })),
      );
      const view = await store.offerView();
      expect((await collect(view.keyPages())).map((p) => p.length)).toEqual([VIEW_PAGE]);
      const pages = await collect(view.pages());
      expect(pages.map((p) => p.length)).toEqual([VIEW_PAGE]);
      expect(pages[0]?.at(-1)?.externalId).toBe(`sku-${String(VIEW_PAGE - 1).padStart(5, '0')}`);
      expect(await view.countManaged()).toBe(VIEW_PAGE / 2);
    } finally {
      await store.close();
    }
  });

  it("a file's rows belong to its one seller", async () => {
    const store = await openStateStore(join(dir, 'state.db'));
    await store.upsertOffer('item', 'a', {});
    await store.close();
    const raw = new BetterSqlite3(join(dir, 'state.db'), { readonly: true });
    expect(raw.prepare('SELECT seller FROM offers').pluck().all()).toEqual([FILE_SELLER]);
    raw.close();
  });
});
