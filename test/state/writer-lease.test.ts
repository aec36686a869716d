// The writer lease as a holder sees it: waiting, taking over at expiry, heartbeats, losing it, and the
// at-once takeover of a holder proven dead (same boot and pid namespace, pid gone) and of no other.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { LeaseClaim, WriterLease } from '../../src/state/records.ts';
import { openStateStore } from '../../src/state/sqlite-state-store.ts';
import {
  acquireWriterLease,
  LeaseHeldError,
  LeaseLostError,
  localClaim,
  localScope,
} from '../../src/state/writer-lease.ts';

const TTL = 1_000;
const other = (over: Partial<LeaseClaim> = {}): LeaseClaim => ({
  holder: 'other-instance',
  pid: 1,
  hostname: 'other-host',
  scope: 'another-boot/pid:[1]',
  ...over,
});

/** A store whose clock the test moves: expiry is judged by the store, never by the holder. */
function storeWithClock() {
  const clock = { now: 1_000_000 };
  const store = openStateStore(':memory:', { now: () => clock.now });
  return { store, clock };
}

/** A pid that belonged to a process of ours and is gone now. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('acquireWriterLease', () => {
  it('takes a free lease under a random instance id (never pid@host) and lets go of it', async () => {
    const { store } = storeWithClock();
    const lease = await acquireWriterLease(store, { ttlMs: TTL });
    expect(lease.holder).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(lease.holder).not.toContain(String(process.pid));
    expect(store.currentLease()).toMatchObject({ holder: lease.holder, pid: process.pid, scope: localScope() });
    expect(localClaim().holder).not.toBe(localClaim().holder);
    lease.release();
    expect(store.currentLease()).toBeUndefined();
    store.close();
  });

  it('fails at once with no wait, naming the holder and when its lease runs out', async () => {
    const { store } = storeWithClock();
    store.acquireLease(other(), 60_000);
    const err = await acquireWriterLease(store, { ttlMs: TTL }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as LeaseHeldError).heldBy).toMatchObject({ holder: 'other-instance', hostname: 'other-host' });
    expect((err as Error).message).toMatch(
      /another offersync \(instance other-instance, pid 1 on other-host\) holds the state db until 1970-01-01T00:17:40/,
    );
    expect((err as Error).message).toMatch(/1970-01-01T00:17:40\.000Z; nothing was sent\. .*--lock-timeout/);
    store.close();
  });

  it('waits (telling the caller once who holds it) and takes over when the lease expires', async () => {
    const { store, clock } = storeWithClock();
    store.acquireLease(other(), TTL);
    const waitedFor: WriterLease[] = [];
    const taking = acquireWriterLease(store, {
      ttlMs: TTL,
      waitMs: Number.POSITIVE_INFINITY,
      onWait: (h) => {
        waitedFor.push(h);
        // The other holder stops renewing (killed in another container): its lease runs out.
        clock.now += TTL;
      },
    });
    const lease = await taking;
    expect(waitedFor.map((h) => h.holder)).toEqual(['other-instance']);
    expect(store.currentLease()?.holder).toBe(lease.holder);
    lease.release();
    store.close();
  });

  it('gives up after waitMs with LeaseHeldError, and a stop signal ends the wait', async () => {
    const { store } = storeWithClock();
    store.acquireLease(other(), 60_000);
    const err = await acquireWriterLease(store, { ttlMs: TTL, waitMs: 120 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as LeaseHeldError).waitedMs).toBe(120);
    expect((err as Error).message).toContain('(waited 120 ms)');

    const stop = new AbortController();
    const waiting = acquireWriterLease(store, {
      ttlMs: TTL,
      waitMs: Number.POSITIVE_INFINITY,
      signal: stop.signal,
      onWait: () => stop.abort(new Error('stopping')),
    });
    await expect(waiting).rejects.toThrow('stopping');
    expect(store.currentLease()?.holder).toBe('other-instance');
    store.close();
  });

  it('renews by heartbeat, and reports the loss when another instance took it after a stall', async () => {
    const { store, clock } = storeWithClock();
    const lost: WriterLease[] = [];
    const lease = await acquireWriterLease(store, { ttlMs: 300, onLost: (h) => lost.push(h) });
    const firstExpiry = store.currentLease()!.expiresAt;
    clock.now += 50;
    await new Promise<void>((resolve) => {
      const check = () => (store.currentLease()!.expiresAt > firstExpiry ? resolve() : setTimeout(check, 20));
      check();
    });
    // A stall past the TTL: another instance takes the lease; the next heartbeat finds it gone.
    clock.now += 1_000;
    expect(store.acquireLease(other(), 60_000).ok).toBe(true);
    await new Promise<void>((resolve) => lease.lost.addEventListener('abort', () => resolve(), { once: true }));
    expect(lease.lost.reason).toBeInstanceOf(LeaseLostError);
    expect(lost.map((h) => h.holder)).toEqual(['other-instance']);
    // Releasing a lost lease leaves the new holder alone.
    lease.release();
    expect(store.currentLease()?.holder).toBe('other-instance');
    store.close();
  });

  it('takes over at once from a holder proven dead in this boot and pid namespace, and from no other', async () => {
    if (localScope() === '') return; // not Linux: no holder is ever proven dead by its pid
    const { store } = storeWithClock();
    const gone = deadPid();
    store.acquireLease(other({ pid: gone, scope: 'another-boot/pid:[1]' }), 60_000);
    await expect(acquireWriterLease(store, { ttlMs: TTL })).rejects.toThrow(LeaseHeldError);

    store.releaseLease('other-instance');
    store.acquireLease(other({ pid: process.pid, scope: localScope() }), 60_000);
    await expect(acquireWriterLease(store, { ttlMs: TTL })).rejects.toThrow(LeaseHeldError);

    store.releaseLease('other-instance');
    store.acquireLease(other({ pid: gone, scope: localScope() }), 60_000);
    const lease = await acquireWriterLease(store, { ttlMs: TTL });
    expect(store.currentLease()?.holder).toBe(lease.holder);
    lease.release();
    store.close();
  });
});
