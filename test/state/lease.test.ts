import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RawNode, type QueryId, SelectQueryNode, TableNode } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseClaim } from '../../src/state/records.ts';
import { KyselyStateStore, openStateStore } from '../../src/state/open-state-store.ts';
import { FILE_SELLER, openSqliteStateDatabase } from '../../src/state/sqlite-state-database.ts';
import { watchedDatabase } from '../support/watched-database.ts';

const lease = (holder: string, pid = 100): LeaseClaim => ({ holder, pid, hostname: 'host-a', scope: '' });
const TTL = 60_000;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('writer lease', () => {
  it('is taken when free, refused to a second holder (who holds it, until when), renewed by its holder', async () => {
    let now = 1_000_000;
    const store = await openStateStore(':memory:', { now: () => now });
    expect(await store.acquireLease(lease('one', 11), TTL)).toEqual({ ok: true, expiresAt: 1_000_000 + TTL });
    expect(await store.acquireLease(lease('two', 22), TTL)).toEqual({
      ok: false,
      heldBy: { holder: 'one', pid: 11, hostname: 'host-a', scope: '', expiresAt: 1_000_000 + TTL },
    });
    now += 30_000;
    expect(await store.acquireLease(lease('one', 11), TTL)).toMatchObject({ ok: true });
    expect((await store.currentLease())?.expiresAt).toBe(now + TTL);
    now += 45_000; // past the first expiry, within the renewed one
    expect((await store.acquireLease(lease('two', 22), TTL)).ok).toBe(false);
    store.close();
  });

  it('expires on its own, so a killed holder does not lock others out', async () => {
    let now = 1_000_000;
    const store = await openStateStore(':memory:', { now: () => now });
    await store.acquireLease(lease('killed'), TTL);
    now += TTL - 1;
    expect((await store.acquireLease(lease('next'), TTL)).ok).toBe(false);
    now += 1;
    expect(await store.acquireLease(lease('next'), TTL)).toMatchObject({ ok: true });
    expect((await store.currentLease())?.holder).toBe('next');
    // The one that lost it cannot just renew it back.
    expect((await store.acquireLease(lease('killed'), TTL)).ok).toBe(false);
    store.close();
  });

  it('is released only by its holder', async () => {
    const store = await openStateStore(':memory:');
    await store.acquireLease(lease('one'), TTL);
    await store.releaseLease('two');
    expect((await store.acquireLease(lease('two'), TTL)).ok).toBe(false);
    await store.releaseLease('one');
    expect(await store.currentLease()).toBeUndefined();
    expect((await store.acquireLease(lease('two'), TTL)).ok).toBe(true);
    store.close();
  });

  it('holds across connections to the same file (two processes)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-lease-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const a = await openStateStore(path);
    const b = await openStateStore(path);
    expect((await a.acquireLease(lease('a', 1), TTL)).ok).toBe(true);
    const refused = await b.acquireLease(lease('b', 2), TTL);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.heldBy).toMatchObject({ holder: 'a', pid: 1 });
    await a.releaseLease('a');
    expect((await b.acquireLease(lease('b', 2), TTL)).ok).toBe(true);
    expect((await a.acquireLease(lease('a', 1), TTL)).ok).toBe(false);
    a.close();
    b.close();
  });

  /**
   * A store on a file whose lease another process (a second connection) holds, and lets go of each time this
   * store's claim is refused, before this store reads who holds it: the race acquireLease asks again for. The
   * other process takes the lease back after each read, `releases` times in all.
   */
  async function raced(seller: string, releases: number) {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-lease-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const { database } = await openSqliteStateDatabase(path);
    const other = new KyselyStateStore((await openSqliteStateDatabase(path)).database, seller, { ownsDatabase: true });
    await other.acquireLease(lease('other'), TTL);
    const claims = new Set<QueryId>();
    const reads = new Set<QueryId>();
    let released = 0;
    let claimed = 0;
    const watched = watchedDatabase(database, {
      before: ({ node, queryId }) => {
        if (RawNode.is(node) && node.sqlFragments.join('').includes('INSERT INTO seller_leases')) claims.add(queryId);
        const from = SelectQueryNode.is(node) ? node.from?.froms[0] : undefined;
        if (from && TableNode.is(from) && from.table.identifier.name === 'seller_leases') reads.add(queryId);
      },
      after: async ({ queryId, result }) => {
        if (claims.has(queryId)) claimed++;
        if (claims.has(queryId) && result.rows.length === 0 && released < releases) {
          released++;
          await other.releaseLease('other');
        } else if (reads.has(queryId) && released < releases) await other.acquireLease(lease('other'), TTL);
      },
    });
    const store = new KyselyStateStore(watched, seller, { ownsDatabase: true });
    return { store, other, claims: () => claimed };
  }

  it('asks again when the lease is let go between its claim and the read of who holds it', async () => {
    const { store, other, claims } = await raced(FILE_SELLER, 1);
    expect(await store.acquireLease(lease('me'), TTL)).toMatchObject({ ok: true });
    expect(claims()).toBe(2);
    expect((await other.currentLease())?.holder).toBe('me');
    await store.close();
    await other.close();
  });

  it('gives up after 5 claims let go each time, naming the seller (or this state, for a file of one)', async () => {
    for (const [seller, named] of [
      [FILE_SELLER, 'this state'],
      ['shop-1', 'shop-1'],
    ] as const) {
      const { store, other, claims } = await raced(seller, 100);
      await expect(store.acquireLease(lease('me'), TTL)).rejects.toThrow(
        new Error(`state db: the lease of ${named} was released 5 times while asked for`),
      );
      expect(claims()).toBe(5);
      await store.close();
      await other.close();
    }
  });
});
