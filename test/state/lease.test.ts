import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RawNode, type QueryId, SelectQueryNode, TableNode } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseClock } from '../../src/state/lease-clock.ts';
import type { LeaseClaim } from '../../src/state/records.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
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
    expect(await store.acquireLease(lease('one', 11), TTL)).toEqual({ ok: true, epoch: 1, expiresAt: 1_000_000 + TTL });
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

describe('writer lease epochs: a holder paused while another took the lease never takes it back unawares', () => {
  it('release keeps the row, so the epoch only grows; the old epoch renews nothing', async () => {
    const store = await openStateStore(':memory:');
    expect(await store.acquireLease(lease('a'), TTL)).toMatchObject({ ok: true, epoch: 1 });
    expect(await store.renewLease('a', 1, TTL)).toMatchObject({ ok: true });
    // a paused: b takes the lease (expired, or a's was let go), syncs and lets go.
    await store.releaseLease('a');
    expect(await store.acquireLease(lease('b'), TTL)).toMatchObject({ ok: true, epoch: 2 });
    expect(await store.renewLease('a', 1, TTL)).toEqual({
      ok: false,
      heldBy: expect.objectContaining({ holder: 'b' }),
    });
    await store.releaseLease('b');
    expect(await store.currentLease()).toBeUndefined();
    // a resumed: its renewal finds the lease free but not its own, and says so instead of inserting a fresh row.
    expect(await store.renewLease('a', 1, TTL)).toEqual({ ok: false, heldBy: null });
    expect(await store.currentLease()).toBeUndefined();
    expect(await store.acquireLease(lease('a'), TTL)).toMatchObject({ ok: true, epoch: 3 });
    store.close();
  });

  it('a release at an old epoch lets go of nothing', async () => {
    const store = await openStateStore(':memory:');
    await store.acquireLease(lease('a'), TTL);
    await store.releaseLease('a');
    await store.acquireLease(lease('a'), TTL);
    await store.releaseLease('a', 1);
    expect((await store.currentLease())?.holder).toBe('a');
    await store.releaseLease('a', 2);
    expect(await store.currentLease()).toBeUndefined();
    store.close();
  });
});

describe('sqlite lease clock: monotonic, one per boot', () => {
  const fakeClocks = () => {
    const c = { wall: 1_700_000_000_000, mono: 5_000 };
    const leaseClock: LeaseClock = { now: () => c.mono, era: 'boot-a' };
    return { c, opts: { now: () => c.wall, leaseClock } };
  };
  const claim = (holder: string, boot = 'boot-a'): LeaseClaim => ({
    holder,
    pid: 7,
    hostname: 'host-a',
    scope: `${boot}/pid:[4026531836]`,
  });

  it('a wall clock step (+120 s, -1 h) neither expires a live lease nor keeps a dead one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-lease-'));
    dirs.push(dir);
    const { c, opts } = fakeClocks();
    const daemon = await openStateStore(join(dir, 'state.db'), opts);
    const cron = await openStateStore(join(dir, 'state.db'), opts);
    expect((await daemon.acquireLease(claim('daemon'), TTL)).ok).toBe(true);
    c.wall += 120_000;
    c.mono += 1_000;
    // A cron reconcile started after the step finds the daemon's lease live.
    expect((await cron.acquireLease(claim('cron'), TTL)).ok).toBe(false);
    // And the daemon's own writes are not fenced by a lease the wall clock says is over.
    await expect(daemon.journalBegin({ runId: 'r', op: 'update', kind: 'item', keys: ['i-1'] })).resolves.toBeDefined();
    c.wall -= 3_600_000;
    c.mono += TTL;
    // The daemon stopped renewing: its lease runs out on the monotonic clock, an hour back on the wall or not.
    expect((await cron.acquireLease(claim('cron'), TTL)).ok).toBe(true);
    daemon.close();
    cron.close();
  });

  it('shows the expiry as wall-clock time for people', async () => {
    const { c, opts } = fakeClocks();
    const store = await openStateStore(':memory:', opts);
    await store.acquireLease(claim('a'), TTL);
    expect((await store.currentLease())?.expiresAt).toBe(c.wall + TTL);
    store.close();
  });

  it('a lease written in an earlier boot is expired, whatever its expiry says', async () => {
    const { c, opts } = fakeClocks();
    const store = await openStateStore(':memory:', opts);
    // Written at uptime 5 s of boot b with a TTL of a day: read in boot a at uptime 5 s, it looks live.
    await store.acquireLease(claim('old', 'boot-b'), 86_400_000);
    c.mono += 1;
    expect(await store.acquireLease(claim('new'), TTL)).toMatchObject({ ok: true, epoch: 2 });
    // A holder of this boot is not.
    expect((await store.acquireLease(claim('third'), TTL)).ok).toBe(false);
    store.close();
  });
});
