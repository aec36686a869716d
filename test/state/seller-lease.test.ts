// The per-seller lease in PostgreSQL and its fencing: a replica that lost a seller's lease can journal,
// and so send, nothing more for that seller. Two connections stand for two replicas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FencedWriteError, openPostgresConnection, PostgresStateStore } from '../../src/state/postgres-state-store.ts';
import type { LeaseClaim } from '../../src/state/records.ts';
import type { SyncPostgresConnection } from '../../src/state/sync-postgres-connection.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';

let server: TestPostgres;
let a: SyncPostgresConnection;
let b: SyncPostgresConnection;
beforeAll(async () => {
  server = await startPostgres();
  const url = await server.createDatabase();
  a = openPostgresConnection({ url }).connection;
  b = openPostgresConnection({ url }).connection;
}, 60_000);
afterAll(async () => {
  a?.close();
  b?.close();
  await server?.stop();
});

const claim = (holder: string): LeaseClaim => ({ holder, pid: 1, hostname: `host-${holder}`, scope: '' });
const write = async (s: PostgresStateStore) =>
  await s.journalBegin({ runId: 'r', op: 'create', kind: 'item', keys: ['x'] });
const TTL = 60_000;

describe('seller lease (PostgreSQL)', () => {
  it('is held per seller: two replicas can hold two sellers, not one seller twice', async () => {
    const a1 = new PostgresStateStore('shop-1', a, false, {});
    const b1 = new PostgresStateStore('shop-1', b, false, {});
    const b2 = new PostgresStateStore('shop-2', b, false, {});
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
    const old = new PostgresStateStore('shop-3', a, false, {});
    const next = new PostgresStateStore('shop-3', b, false, {});
    expect((await old.acquireLease(claim('old'), TTL)).ok).toBe(true);
    expect((await write(old)).state).toBe('pending');
    // The new holder takes over (as at expiry; here the old holder is named as dead, to need no waiting).
    expect((await next.acquireLease(claim('new'), TTL, 'old')).ok).toBe(true);
    await expect(write(old)).rejects.toThrow(FencedWriteError);
    await expect(write(old)).rejects.toThrow(/no longer holds the seller's lease; the write was not sent/);
    expect((await write(next)).state).toBe('pending');
    // Its renewal is refused with the new holder named; its release does not free the seller.
    const renew = await old.acquireLease(claim('old'), TTL);
    expect(renew.ok).toBe(false);
    await old.releaseLease('old');
    expect((await next.currentLease())?.holder).toBe('new');
    expect(await next.journalUnfinished()).toHaveLength(2);
  });

  it('fences on expiry by the database clock, even before anyone takes the seller over', async () => {
    const s = new PostgresStateStore('shop-4', a, false, {});
    expect((await s.acquireLease(claim('short'), 1_000)).ok).toBe(true);
    // Expire it in place, as a replica paused past its TTL would find it.
    a.query(`UPDATE seller_leases SET expires_at = expires_at - 10000 WHERE seller = 'shop-4'`);
    await expect(write(s)).rejects.toThrow(FencedWriteError);
  });
});
