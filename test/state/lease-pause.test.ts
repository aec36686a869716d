// A holder paused and resumed (SIGSTOP, a frozen container, a sleeping machine) as its lease sees it: every
// request passes pass() as it leaves the queue, and a pause past the TTL, or a lease another instance took
// meanwhile, stops it there. Clocks are fakes the test moves; the store is a real sqlite one.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import type { LeaseClaim, WriterLease } from '../../src/state/records.ts';
import { acquireWriterLease, LeaseLostError, LeaseUnconfirmedError } from '../../src/state/writer-lease.ts';

// Long enough that no real heartbeat runs during a test: the test's clocks are the only time that passes.
const TTL = 60_000;
const me: LeaseClaim = { holder: 'me', pid: 1, hostname: 'host-a', scope: '' };
const other: LeaseClaim = { holder: 'other', pid: 2, hostname: 'host-b', scope: '' };

async function held() {
  // One fake time for the store (its lease clock) and the holder's two clocks, moved as each case needs.
  const t = { store: 1_000_000, mono: 0, wall: 1_700_000_000_000 };
  const store = await openStateStore(':memory:', { now: () => t.store });
  const lost: (WriterLease | null)[] = [];
  const lease = await acquireWriterLease(store, {
    ttlMs: TTL,
    claim: me,
    clocks: { monotonic: () => t.mono, wall: () => t.wall },
    onLost: (h) => lost.push(h),
  });
  return { t, store, lease, lost };
}

describe('HeldLease.pass', () => {
  it('lets requests go while renewals are recent', async () => {
    const { t, store, lease } = await held();
    t.mono += TTL / 2;
    t.wall += TTL / 2;
    await expect(lease.pass()).resolves.toBeUndefined();
    await lease.release();
    store.close();
  });

  it('a pause past the TTL on the monotonic clock is a loss, even when nobody took the lease', async () => {
    const { t, store, lease, lost } = await held();
    t.mono += TTL + 1;
    const err = await lease.pass().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseLostError);
    expect((err as LeaseLostError).pausedMs).toBe(TTL + 1);
    expect((err as Error).message).toMatch(/no renewal confirmed for 60 s, longer than state.leaseTtlMs/);
    expect(lease.lost.aborted).toBe(true);
    expect(lease.closed.aborted).toBe(true);
    expect(lost).toEqual([null]);
    // Released: the row the paused holder may still have is let go for the others.
    await lease.release();
    expect(await store.currentLease()).toBeUndefined();
    store.close();
  });

  it('asleep (the monotonic clock stood still, the wall clock ran on): the store says another took it', async () => {
    const { t, store, lease, lost } = await held();
    t.wall += 5 * TTL;
    t.store += 5 * TTL;
    await store.acquireLease(other, TTL);
    await expect(lease.pass()).rejects.toBeInstanceOf(LeaseLostError);
    expect(lost.map((h) => h?.holder)).toEqual(['other']);
    store.close();
  });

  it('another took it and let go while this one slept: still lost (the epoch moved on)', async () => {
    const { t, store, lease, lost } = await held();
    t.wall += 5 * TTL;
    t.store += 5 * TTL;
    await store.acquireLease(other, TTL);
    await store.releaseLease('other');
    await expect(lease.pass()).rejects.toBeInstanceOf(LeaseLostError);
    expect(lost).toEqual([null]);
    store.close();
  });

  it('a wall clock step forward (+120 s) is settled by one renewal; a step back (-1 h) changes nothing', async () => {
    const { t, store, lease, lost } = await held();
    t.wall += 120_000;
    await expect(lease.pass()).resolves.toBeUndefined();
    await expect(lease.pass()).resolves.toBeUndefined();
    t.wall -= 3_600_000;
    t.mono += TTL / 2;
    await expect(lease.pass()).resolves.toBeUndefined();
    expect(lost).toEqual([]);
    expect((await store.currentLease())?.holder).toBe('me');
    await lease.release();
    store.close();
  });

  it('lost for want of a renewal while the store is down: release still resolves (the row expires alone)', async () => {
    const { t, store, lease } = await held();
    store.close();
    t.mono += TTL + 1;
    await expect(lease.pass()).rejects.toBeInstanceOf(LeaseLostError);
    await expect(lease.release()).resolves.toBeUndefined();
  });

  it('a renewal due that the store cannot confirm holds the request back, unsent', async () => {
    const { t, store, lease } = await held();
    t.mono += TTL * 0.8;
    store.close();
    await expect(lease.pass()).rejects.toBeInstanceOf(LeaseUnconfirmedError);
    expect(lease.lost.aborted).toBe(false);
  });
});
