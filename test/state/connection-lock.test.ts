// sqlite's one connection shared by kysely's queries and the hot ops: a batch of hot ops waits for a kysely
// transaction to end (it would otherwise begin inside it), and takers go in arrival order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionLock } from '../../src/state/connection-lock.ts';
import type { JournalInsertOp } from '../../src/state/hot-ops.ts';
import { FILE_SELLER, openSqliteStateDatabase } from '../../src/state/sqlite-state-database.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-connection-lock-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const journalRow = (runId: string): JournalInsertOp => ({
  op: 'journal-insert',
  row: {
    run_id: runId,
    op: 'create',
    kind: 'item',
    keys: '["it-1"]',
    state: 'sent',
    error: null,
    created_at: 1,
    updated_at: 1,
  },
  fence: null,
  leaseNow: 0,
});

describe('ConnectionLock', () => {
  it('is taken at once when free, and handed to the waiting in arrival order', async () => {
    const lock = new ConnectionLock();
    expect(lock.tryTake()).toBe(true);
    expect(lock.tryTake()).toBe(false);
    const order: string[] = [];
    const a = lock.take().then(() => order.push('a'));
    const b = lock.take().then(() => order.push('b'));
    await Promise.resolve();
    expect(order).toEqual([]);
    lock.free();
    await a;
    expect(order).toEqual(['a']);
    lock.free();
    await b;
    expect(order).toEqual(['a', 'b']);
    lock.free();
    expect(lock.tryTake()).toBe(true);
  });
});

describe('the hot ops and kysely on one sqlite connection', () => {
  it('runs a batch only after a kysely transaction open meanwhile has committed', async () => {
    const { database } = await openSqliteStateDatabase(join(dir, 'state.db'));
    try {
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      const tx = database.db.transaction().execute(async (trx) => {
        const value = 'in the transaction';
        await sql`INSERT INTO seller_meta (seller, key, value) VALUES (${FILE_SELLER}, 'k', ${value})`.execute(trx);
        order.push('transaction wrote');
        await held;
        order.push('transaction ends');
      });
      await new Promise((r) => setTimeout(r, 20));
      const batch = database.hot.run(FILE_SELLER, [journalRow('r1')]).then((answers) => {
        order.push('batch committed');
        return answers;
      });
      await new Promise((r) => setTimeout(r, 20));
      expect(order).toEqual(['transaction wrote']);
      release();
      await tx;
      const [saved] = (await batch) as { id: number }[];
      expect(order).toEqual(['transaction wrote', 'transaction ends', 'batch committed']);
      expect(saved?.id).toBeGreaterThan(0);
      const meta = await sql<{ value: string }>`SELECT value FROM seller_meta WHERE key = 'k'`.execute(database.db);
      expect(meta.rows).toEqual([{ value: 'in the transaction' }]);
    } finally {
      await database.close();
    }
  });
});
