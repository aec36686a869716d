// The journal's fence on sqlite: a batch reads the seller's lease once, and each insert is judged against it with
// its own clock reading. A later batch reads the lease again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HotFence, JournalInsertOp } from '../../src/state/hot-ops.ts';
import { FILE_SELLER, openSqliteStateDatabase } from '../../src/state/sqlite-state-database.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-hot-statements-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const insert = (externalId: string, fence: HotFence | null, leaseNow: number): JournalInsertOp => ({
  op: 'journal-insert',
  row: {
    run_id: 'r1',
    op: 'update',
    kind: 'item',
    keys: JSON.stringify([externalId]),
    state: 'pending',
    error: null,
    created_at: 1,
    updated_at: 1,
  },
  fence,
  leaseNow,
});

describe('sqlite hot statements: fenced journal inserts', () => {
  it('keeps a row only while its holder and epoch hold the lease, unexpired at its own clock reading', async () => {
    const { database } = await openSqliteStateDatabase(join(dir, 'state.db'));
    try {
      const lease = (epoch: number, expiresAt: number) =>
        sql`INSERT OR REPLACE INTO seller_leases (seller, holder, pid, hostname, scope, epoch, expires_at)
            VALUES (${FILE_SELLER}, 'holder-a', 1, 'host', '', ${epoch}, ${expiresAt})`.execute(database.db);
      await lease(3, 1000);
      const held = { holder: 'holder-a', epoch: 3 };
      const answers = await database.hot.run(FILE_SELLER, [
        insert('before-expiry', held, 999),
        insert('at-expiry', held, 1000),
        insert('other-holder', { holder: 'holder-b', epoch: 3 }, 10),
        insert('older-epoch', { holder: 'holder-a', epoch: 2 }, 10),
        insert('unfenced', null, 0),
      ]);
      expect(answers.map((a) => (a === undefined ? 'fenced' : 'kept'))).toEqual([
        'kept',
        'fenced',
        'fenced',
        'fenced',
        'kept',
      ]);
      // Taken over between two batches: the next batch reads the new lease.
      await lease(4, 5000);
      const next = await database.hot.run(FILE_SELLER, [
        insert('old', held, 10),
        insert('new', { ...held, epoch: 4 }, 10),
      ]);
      expect(next.map((a) => (a === undefined ? 'fenced' : 'kept'))).toEqual(['fenced', 'kept']);
      const rows = await sql<{ keys: string }>`SELECT keys FROM journal ORDER BY id`.execute(database.db);
      expect(rows.rows.map((r) => JSON.parse(r.keys)[0])).toEqual(['before-expiry', 'unfenced', 'new']);
    } finally {
      await database.close();
    }
  });
});
