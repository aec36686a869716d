// The writer lease as a holder sees it: waiting, taking over at expiry, heartbeats, losing it, and the
// at-once takeover of a holder proven dead (same boot and pid namespace, pid gone) and of no other.
import { spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LeaseClaim, WriterLease } from '../../src/state/records.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import {
  acquireWriterLease,
  LeaseHeldError,
  LeaseLostError,
  type LeaseStore,
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
async function storeWithClock() {
  const clock = { now: 1_000_000 };
  const store = await openStateStore(':memory:', { now: () => clock.now });
  return { store, clock };
}

/** A pid that belonged to a process of ours and is gone now. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

/** The real store behind an outage switch: a disk or network gone for a beat, which no real part does on cue. */
function withOutage(store: LeaseStore): LeaseStore & { down: boolean } {
  const flaky = {
    down: false,
    acquireLease: async (claim: LeaseClaim, ttlMs: number, takeOverFrom?: string) => {
      if (flaky.down) throw new Error('state db unreachable');
      return await store.acquireLease(claim, ttlMs, takeOverFrom);
    },
    renewLease: async (holder: string, epoch: number, ttlMs: number) => {
      if (flaky.down) throw new Error('state db unreachable');
      return await store.renewLease(holder, epoch, ttlMs);
    },
    releaseLease: async (holder: string, epoch?: number) => {
      if (flaky.down) throw new Error('state db unreachable');
      await store.releaseLease(holder, epoch);
    },
  };
  return flaky;
}

describe('acquireWriterLease', () => {
  it('takes a free lease under a random instance id (never pid@host) and lets go of it', async () => {
    const { store } = await storeWithClock();
    const lease = await acquireWriterLease(store, { ttlMs: TTL });
    expect(lease.holder).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(lease.holder).not.toContain(String(process.pid));
    expect(await store.currentLease()).toMatchObject({ holder: lease.holder, pid: process.pid, scope: localScope() });
    expect(localClaim().holder).not.toBe(localClaim().holder);
    await lease.release();
    expect(await store.currentLease()).toBeUndefined();
    store.close();
  });

  it('fails at once with no wait, naming the holder and when its lease runs out', async () => {
    const { store } = await storeWithClock();
    await store.acquireLease(other(), 60_000);
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
    const { store, clock } = await storeWithClock();
    await store.acquireLease(other(), TTL);
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
    expect((await store.currentLease())?.holder).toBe(lease.holder);
    await lease.release();
    store.close();
  });

  it('gives up after waitMs with LeaseHeldError, and a stop signal ends the wait', async () => {
    const { store } = await storeWithClock();
    await store.acquireLease(other(), 60_000);
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
    expect((await store.currentLease())?.holder).toBe('other-instance');
    store.close();
  });

  it('renews by heartbeat, and reports the loss when another instance took it after a stall', async () => {
    const { store, clock } = await storeWithClock();
    const lost: (WriterLease | null)[] = [];
    const lease = await acquireWriterLease(store, { ttlMs: 300, onLost: (h) => lost.push(h) });
    const firstExpiry = (await store.currentLease())!.expiresAt;
    clock.now += 50;
    await new Promise<void>((resolve) => {
      const check = async () =>
        (await store.currentLease())!.expiresAt > firstExpiry ? resolve() : setTimeout(check, 20);
      check();
    });
    // A stall past the TTL: another instance takes the lease; the next heartbeat finds it gone.
    clock.now += 1_000;
    expect((await store.acquireLease(other(), 60_000)).ok).toBe(true);
    await new Promise<void>((resolve) => lease.lost.addEventListener('abort', () => resolve(), { once: true }));
    expect(lease.lost.reason).toBeInstanceOf(LeaseLostError);
    expect(lost.map((h) => h?.holder)).toEqual(['other-instance']);
    // Releasing a lost lease leaves the new holder alone.
    await lease.release();
    expect((await store.currentLease())?.holder).toBe('other-instance');
    store.close();
  });

  it('takes over at once from a holder proven dead in this boot and pid namespace, and from no other', async () => {
    if (localScope() === '') return; // not Linux: no holder is ever proven dead by its pid
    const { store } = await storeWithClock();
    const gone = deadPid();
    await store.acquireLease(other({ pid: gone, scope: 'another-boot/pid:[1]' }), 60_000);
    await expect(acquireWriterLease(store, { ttlMs: TTL })).rejects.toThrow(LeaseHeldError);

    await store.releaseLease('other-instance');
    await store.acquireLease(other({ pid: process.pid, scope: localScope() }), 60_000);
    await expect(acquireWriterLease(store, { ttlMs: TTL })).rejects.toThrow(LeaseHeldError);

    await store.releaseLease('other-instance');
    await store.acquireLease(other({ pid: gone, scope: localScope() }), 60_000);
    const lease = await acquireWriterLease(store, { ttlMs: TTL });
    expect((await store.currentLease())?.holder).toBe(lease.holder);
    await lease.release();
    store.close();
  });
});

// The same lease on a real sqlite file, with one fake clock for the holder's timers and the store's judgement of
// expiry (vi's fake timers fake Date.now, which the store is given): polls and heartbeats run when the test moves
// time, never by sleeping.
describe('acquireWriterLease on a state db file, by a fake clock', () => {
  const START = 1_000_000;
  const me: LeaseClaim = { holder: 'this-instance', pid: process.pid, hostname: 'this-host', scope: localScope() };
  const dirs: string[] = [];
  beforeEach(() => {
    vi.useFakeTimers({ now: START });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  async function fileStore() {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-writer-lease-'));
    dirs.push(dir);
    return await openStateStore(join(dir, 'state.db'), { now: () => Date.now() });
  }
  /** The promise's outcome as soon as it has one, read without awaiting it. */
  function outcome<T>(p: Promise<T>): { value?: T; error?: unknown } {
    const o: { value?: T; error?: unknown } = {};
    p.then(
      (v) => {
        o.value = v;
      },
      (e: unknown) => {
        o.error = e;
      },
    );
    return o;
  }

  it.each([
    { ttlMs: 1_000, pollMs: 250 },
    { ttlMs: 100_000, pollMs: 1_000 },
    { ttlMs: 100, pollMs: 50 },
  ])(
    'polls a held lease every ttl/4 (here $pollMs ms), telling the caller once; takes it at the next poll once freed',
    async ({ ttlMs, pollMs }) => {
      const store = await fileStore();
      await store.acquireLease(other(), 3_600_000);
      const waitedFor: WriterLease[] = [];
      const stop = new AbortController();
      const taking = outcome(
        acquireWriterLease(store, {
          ttlMs,
          waitMs: Number.POSITIVE_INFINITY,
          claim: me,
          signal: stop.signal,
          onWait: (h) => waitedFor.push(h),
        }),
      );
      await vi.advanceTimersByTimeAsync(pollMs * 5);
      expect(waitedFor.map((h) => h.holder)).toEqual(['other-instance']);
      await store.releaseLease('other-instance');
      await vi.advanceTimersByTimeAsync(pollMs - 1);
      expect(taking.value).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(taking.value?.holder).toBe('this-instance');
      expect(await store.currentLease()).toMatchObject({ holder: 'this-instance', expiresAt: Date.now() + ttlMs });
      // Each poll's wait let go of the stop signal: a wait of hours leaves no pile of listeners on it.
      expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
      await taking.value?.release();
      store.close();
    },
  );

  it('gives up when waitMs runs out, not at the next poll, naming holder, expiry and time waited', async () => {
    const store = await fileStore();
    await store.acquireLease(other(), 3_600_000);
    const taking = outcome(acquireWriterLease(store, { ttlMs: 60_000, waitMs: 1_500, claim: me }));
    await vi.advanceTimersByTimeAsync(1_499);
    expect(taking.error).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    const err = taking.error as LeaseHeldError;
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect(err.name).toBe('LeaseHeldError');
    expect(err.waitedMs).toBe(1_500);
    expect(err.message).toBe(
      'another offersync (instance other-instance, pid 1 on other-host) holds the state db until ' +
        '1970-01-01T01:16:40.000Z; nothing was sent (waited 1.5 s). Wait for it to finish or stop it, ' +
        'or pass --lock-timeout <duration> (e.g. 2m) to wait for it; a killed process lets go when its lease expires.',
    );
    expect(vi.getTimerCount()).toBe(0);
    expect((await store.currentLease())?.holder).toBe('other-instance');
    store.close();
  });

  it('a stop signal ends a wait between polls, leaving no timer; an aborted one takes nothing', async () => {
    const store = await fileStore();
    await store.acquireLease(other(), 3_600_000);
    const stop = new AbortController();
    const taking = outcome(
      acquireWriterLease(store, { ttlMs: 1_000, waitMs: Number.POSITIVE_INFINITY, claim: me, signal: stop.signal }),
    );
    await vi.advanceTimersByTimeAsync(600);
    stop.abort(new Error('stopping'));
    await vi.advanceTimersByTimeAsync(0);
    expect((taking.error as Error).message).toBe('stopping');
    expect(vi.getTimerCount()).toBe(0);

    await store.releaseLease('other-instance');
    await expect(acquireWriterLease(store, { ttlMs: 1_000, claim: me, signal: stop.signal })).rejects.toThrow(
      'stopping',
    );
    expect(await store.currentLease()).toBeUndefined();
    store.close();
  });

  it('renews every ttl/3, so a live holder never runs out, and stops renewing once released', async () => {
    const store = await fileStore();
    const lease = await acquireWriterLease(store, { ttlMs: 3_000, claim: me });
    expect((await store.currentLease())?.expiresAt).toBe(START + 3_000);
    await vi.advanceTimersByTimeAsync(999);
    expect((await store.currentLease())?.expiresAt).toBe(START + 3_000);
    await vi.advanceTimersByTimeAsync(1);
    expect((await store.currentLease())?.expiresAt).toBe(START + 1_000 + 3_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await store.acquireLease(other(), 60_000)).ok).toBe(false);
    expect(lease.lost.aborted).toBe(false);

    await lease.release();
    expect(await store.currentLease()).toBeUndefined();
    // No heartbeat after release takes the lease back.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await store.currentLease()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
    store.close();
  });

  it('once lost, stops for good: onLost once, and no taking it back when the new holder lets go', async () => {
    const store = await fileStore();
    const onLost = vi.fn();
    const lease = await acquireWriterLease(store, { ttlMs: 3_000, claim: me, onLost });
    // A stall: the clock moves past the TTL with no heartbeat run; another instance takes the lease.
    vi.setSystemTime(Date.now() + 5_000);
    expect((await store.acquireLease(other(), 60_000)).ok).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lease.lost.aborted).toBe(true);
    const reason = lease.lost.reason as LeaseLostError;
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(reason.name).toBe('LeaseLostError');
    expect(reason.heldBy?.holder).toBe('other-instance');
    expect(reason.message).toBe(
      'lost the writer lease to another offersync (instance other-instance, pid 1 on other-host): ' +
        'no further write is started',
    );
    expect(onLost.mock.calls).toEqual([[reason.heldBy]]);

    await store.releaseLease('other-instance');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onLost).toHaveBeenCalledTimes(1);
    expect(await store.currentLease()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
    store.close();
  });

  it('a heartbeat that cannot reach the store and has no onRenewError does not crash the process', async () => {
    const store = await fileStore();
    const flaky = withOutage(store);
    const lease = await acquireWriterLease(flaky, { ttlMs: 3_000, claim: me });
    flaky.down = true;
    // An error thrown from the heartbeat's timer would surface here (and, for real, end the process).
    await vi.advanceTimersByTimeAsync(2_000);
    expect(lease.lost.aborted).toBe(false);
    flaky.down = false;
    await lease.release();
    store.close();
  });

  it('a loss with no onLost handler is still no renew error', async () => {
    const store = await fileStore();
    const errors: unknown[] = [];
    const lease = await acquireWriterLease(store, { ttlMs: 3_000, claim: me, onRenewError: (e) => errors.push(e) });
    vi.setSystemTime(Date.now() + 5_000);
    await store.acquireLease(other(), 60_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lease.lost.reason).toBeInstanceOf(LeaseLostError);
    expect(errors).toEqual([]);
    store.close();
  });

  it('a heartbeat that cannot reach the store reports it, keeps the lease, and renews at the next beat', async () => {
    const store = await fileStore();
    const flaky = withOutage(store);
    const errors: unknown[] = [];
    const lease = await acquireWriterLease(flaky, { ttlMs: 3_000, claim: me, onRenewError: (e) => errors.push(e) });
    flaky.down = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors.map((e) => (e as Error).message)).toEqual(['state db unreachable']);
    expect(lease.lost.aborted).toBe(false);
    flaky.down = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toHaveLength(1);
    expect(await store.currentLease()).toMatchObject({ holder: 'this-instance', expiresAt: START + 2_000 + 3_000 });
    await lease.release();
    store.close();
  });

  it('tells onRenewed of each renewal the store confirmed, not of a beat that failed nor of a lost lease', async () => {
    const store = await fileStore();
    const flaky = withOutage(store);
    let renewed = 0;
    const lease = await acquireWriterLease(flaky, {
      ttlMs: 3_000,
      claim: me,
      onRenewed: () => renewed++,
      onRenewError: () => {},
    });
    expect(renewed).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewed).toBe(1);
    flaky.down = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewed).toBe(1);
    flaky.down = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewed).toBe(2);
    // A stall past the TTL, another instance takes it: the next beat loses it, and that is no renewal.
    vi.setSystemTime(Date.now() + 5_000);
    await store.acquireLease(other(), 60_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lease.lost.aborted).toBe(true);
    expect(renewed).toBe(2);
    store.close();
  });

  it('a renewal under way at release that fails after it is no renew error, and the lease is let go', async () => {
    const store = await fileStore();
    let stall = false;
    let answer: () => void = () => {};
    // The real store behind a renewal that does not answer until the test says so, and then fails.
    const slow: LeaseStore = {
      acquireLease: async (claim, ttlMs, takeOverFrom) => await store.acquireLease(claim, ttlMs, takeOverFrom),
      renewLease: async (holder, epoch, ttlMs) => {
        if (!stall) return await store.renewLease(holder, epoch, ttlMs);
        await new Promise<void>((resolve) => {
          answer = resolve;
        });
        throw new Error('state db unreachable');
      },
      releaseLease: async (holder, epoch) => await store.releaseLease(holder, epoch),
    };
    const errors: unknown[] = [];
    const onLost = vi.fn();
    const lease = await acquireWriterLease(slow, {
      ttlMs: 3_000,
      claim: me,
      onRenewError: (e) => errors.push(e),
      onLost,
    });
    stall = true;
    await vi.advanceTimersByTimeAsync(1_000);
    const releasing = lease.release();
    answer();
    await releasing;
    expect(errors).toEqual([]);
    expect(onLost).not.toHaveBeenCalled();
    expect(lease.lost.aborted).toBe(false);
    expect(await store.currentLease()).toBeUndefined();
    store.close();
  });

  it('releasing a lost lease asks nothing of the store: it resolves with the store unreachable', async () => {
    const store = await fileStore();
    const flaky = withOutage(store);
    const lease = await acquireWriterLease(flaky, { ttlMs: 3_000, claim: me });
    vi.setSystemTime(Date.now() + 5_000);
    await store.acquireLease(other(), 60_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lease.lost.aborted).toBe(true);
    flaky.down = true;
    await expect(lease.release()).resolves.toBeUndefined();
    expect((await store.currentLease())?.holder).toBe('other-instance');
    store.close();
  });

  it('says a wait of a whole second in seconds', async () => {
    const store = await fileStore();
    await store.acquireLease(other(), 3_600_000);
    const taking = outcome(acquireWriterLease(store, { ttlMs: 60_000, waitMs: 1_000, claim: me }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect((taking.error as LeaseHeldError).message).toContain('nothing was sent (waited 1 s).');
    store.close();
  });

  it('does not take over a holder whose pid lives or it cannot tell (no scope, a pid it may not signal)', async () => {
    if (localScope() === '') return; // not Linux: no holder is ever proven dead by its pid
    const store = await fileStore();
    const gone = deadPid();
    // Alive in this boot and pid namespace: the parent process (the test runner).
    await store.acquireLease(other({ pid: process.ppid, scope: localScope() }), 60_000);
    await expect(acquireWriterLease(store, { ttlMs: 1_000, claim: me })).rejects.toThrow(LeaseHeldError);
    // Both without a scope (not Linux): equal scopes, but '' proves nothing.
    await store.releaseLease('other-instance');
    await store.acquireLease(other({ pid: gone, scope: '' }), 60_000);
    await expect(acquireWriterLease(store, { ttlMs: 1_000, claim: { ...me, scope: '' } })).rejects.toThrow(
      LeaseHeldError,
    );
    // A pid this process may not signal (another user's, when not root) is alive: only ESRCH proves it gone. The
    // tests run as root, which may signal any pid, so the kernel's EPERM is stood in for.
    await store.releaseLease('other-instance');
    await store.acquireLease(other({ pid: gone, scope: localScope() }), 60_000);
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    await expect(acquireWriterLease(store, { ttlMs: 1_000, claim: me })).rejects.toThrow(LeaseHeldError);
    expect((await store.currentLease())?.holder).toBe('other-instance');
    store.close();
  });
});

describe('the heartbeat and the local scope', () => {
  it('never keeps the process alive on its own (its timer is unref’d)', async () => {
    const store = await openStateStore(':memory:');
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const lease = await acquireWriterLease(store, { ttlMs: 60_000 });
    expect(timers()).toBe(before);
    await lease.release();
    store.close();
  });

  it('names no scope where /proc cannot be read (not Linux), so that no holder is proven dead by its pid', async () => {
    // A fresh copy of the module, whose scope is not read yet, on a node:fs without /proc.
    vi.resetModules();
    vi.doMock('node:fs', async (importOriginal) => ({
      ...(await importOriginal<typeof import('node:fs')>()),
      readFileSync: () => {
        throw Object.assign(new Error("ENOENT: no such file or directory, open '/proc/sys/kernel/random/boot_id'"), {
          code: 'ENOENT',
        });
      },
    }));
    try {
      const fresh = await import('../../src/state/writer-lease.ts');
      expect(fresh.localScope()).toBe('');
      expect(fresh.localClaim().scope).toBe('');
    } finally {
      vi.doUnmock('node:fs');
      vi.resetModules();
    }
  });

  it('names this boot and pid namespace as <boot id>/pid:[inode], the same on every call (Linux)', () => {
    if (process.platform !== 'linux') return;
    expect(localScope()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/pid:\[\d+\]$/);
    expect(localClaim().scope).toBe(localScope());
  });
});
