// The per-seller lease in PostgreSQL and its fencing: a replica that lost a seller's lease can journal,
// and so send, nothing more for that seller. Two connections stand for two replicas.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FencedWriteError, KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { openPostgresStateDatabase, type PostgresStateDatabase } from '../../src/state/postgres-state-database.ts';
import type { LeaseClaim } from '../../src/state/records.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';

let server: TestPostgres;
let a: PostgresStateDatabase;
let b: PostgresStateDatabase;
beforeAll(async () => {
  server = await startPostgres();
  const url = await server.createDatabase();
  a = (await openPostgresStateDatabase({ url })).database;
  b = (await openPostgresStateDatabase({ url })).database;
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await server?.stop();
});

const claim = (holder: string): LeaseClaim => ({ holder, pid: 1, hostname: `host-${holder}`, scope: '' });
const write = async (s: KyselyStateStore) =>
  await s.journalBegin({ runId: 'r', op: 'create', kind: 'item', keys: ['x'] });
const TTL = 60_000;

describe('seller lease (PostgreSQL)', () => {
  it('is held per seller: two replicas can hold two sellers, not one seller twice', async () => {
    const a1 = new KyselyStateStore(a, 'shop-1');
    const b1 = new KyselyStateStore(b, 'shop-1');
    const b2 = new KyselyStateStore(b, 'shop-2');
    expect((await a1.acquireLease(claim('A'), TTL)).ok).toBe(true);
    const refused = await b1.acquireLease(claim('B'), TTL);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.heldBy).toMatchObject({ holder: 'A', hostname: 'host-A' });
    expect((await b2.acquireLease(claim('B'), TTL)).ok).toBe(true);
    expect((await a1.acquireLease(claim('A'), TTL)).ok).toBe(true); // a renewal
    await a1.releaseLease('A');
    expect((await b1.acquireLease(claim('B'), TTL)).ok).toBe(true); // free after release
  });

  it('fences: once another replica holds the seller, the old one cannot journal a write; the new one can', async () => {
    const old = new KyselyStateStore(a, 'shop-3');
    const next = new KyselyStateStore(b, 'shop-3');
    expect((await old.acquireLease(claim('old'), TTL)).ok).toBe(true);
    expect((await write(old)).state).toBe('pending');
    // The new holder takes over (as at expiry; here the old holder is named as dead, to need no waiting).
    expect((await next.acquireLease(claim('new'), TTL, 'old')).ok).toBe(true);
    await expect(write(old)).rejects.toThrow(FencedWriteError);
    await expect(write(old)).rejects.toThrow(
      "seller shop-3: this replica (old) no longer holds the seller's lease; the write was not sent " +
        '(another replica took the seller over)',
    );
    expect((await write(next)).state).toBe('pending');
    // Its renewal is refused with the new holder named; its release does not free the seller.
    const renew = await old.acquireLease(claim('old'), TTL);
    expect(renew.ok).toBe(false);
    await old.releaseLease('old');
    expect((await next.currentLease())?.holder).toBe('new');
    expect(await next.journalUnfinished()).toHaveLength(2);
  });

  it("a seller's store on a shared database tells of no migrations: the database's opener ran them", async () => {
    expect(new KyselyStateStore(a, 'shop-5').migrations).toEqual([]);
  });

  it('fences on expiry by the database clock, even before anyone takes the seller over', async () => {
    const s = new KyselyStateStore(a, 'shop-4');
    expect((await s.acquireLease(claim('short'), 1_000)).ok).toBe(true);
    // Expire it in place, as a replica paused past its TTL would find it.
    await sql`UPDATE seller_leases SET expires_at = expires_at - 10000 WHERE seller = 'shop-4'`.execute(a.db);
    await expect(write(s)).rejects.toThrow(FencedWriteError);
  });
});
