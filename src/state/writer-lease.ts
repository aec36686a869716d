// The writer lease (docs/architecture.md, Lease): one writer per state db. It is held under a random instance id,
// renewed by a heartbeat every ttl/3 and expires on its own, so a killed holder locks nobody out for longer
// than the TTL. Waiting for it (the daemon, --lock-timeout) and noticing its loss (a stalled heartbeat) live
// here; the store only answers "yours until T" or "held by X until T".
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LeaseClaim, WriterLease } from './records.ts';
import type { StateStore } from './state-store.ts';

/** What the lease needs of a store: any StateStore implementation will do. */
export type LeaseStore = Pick<StateStore, 'acquireLease' | 'releaseLease'>;

export interface WriterLeaseOptions {
  /** The lease runs out this long after its last renewal; the heartbeat renews it every ttlMs / 3. */
  readonly ttlMs: number;
  /** How long to wait while another instance holds it: 0 (default) fails at once, Infinity waits for good. */
  readonly waitMs?: number;
  /** Called once when the lease is found held and the caller is going to wait for it. */
  readonly onWait?: (heldBy: WriterLease) => void;
  /** Called when a heartbeat finds another holder: this process stalled past its TTL and must stop writing. */
  readonly onLost?: (heldBy: WriterLease) => void;
  /** Called when a heartbeat cannot reach the store; it tries again at the next beat. */
  readonly onRenewError?: (err: unknown) => void;
  /** Called after each renewal the store confirmed (the store answers again after an outage). */
  readonly onRenewed?: () => void;
  /** Aborting stops a wait: acquireWriterLease rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Default: a new random instance id with this process's pid, host name and scope. */
  readonly claim?: LeaseClaim;
}

export interface HeldLease {
  readonly holder: string;
  /** Aborted (with a LeaseLostError) when another instance took the lease: stop starting writes. */
  readonly lost: AbortSignal;
  /** Stops the heartbeat and lets go of the lease (a no-op once lost). */
  release(): Promise<void>;
}

/** Another instance holds the lease (and the wait, if any, ran out). */
export class LeaseHeldError extends Error {
  override readonly name = 'LeaseHeldError';
  constructor(
    readonly heldBy: WriterLease,
    readonly waitedMs: number,
  ) {
    super(
      `${describeHolder(heldBy)} holds the state db until ${new Date(heldBy.expiresAt).toISOString()}; ` +
        `nothing was sent${waitedMs > 0 ? ` (waited ${formatMs(waitedMs)})` : ''}. Wait for it to finish or stop it, ` +
        'or pass --lock-timeout <duration> (e.g. 2m) to wait for it; a killed process lets go when its lease expires.',
    );
  }
}

/** Another instance took the lease while this one held it (its heartbeat stalled past the TTL). */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly heldBy: WriterLease) {
    super(`lost the writer lease to ${describeHolder(heldBy)}: no further write is started`);
  }
}

export function describeHolder(h: WriterLease): string {
  return `another offersync (instance ${h.holder}, pid ${h.pid} on ${h.hostname})`;
}

/**
 * Takes the lease, waiting up to opts.waitMs while another instance holds it, and keeps it renewed until
 * release(). A holder proven dead (same boot and pid namespace, pid gone) is taken over at once.
 */
export async function acquireWriterLease(store: LeaseStore, opts: WriterLeaseOptions): Promise<HeldLease> {
  const claim = opts.claim ?? localClaim();
  const waitMs = opts.waitMs ?? 0;
  const started = Date.now();
  let told = false;
  for (;;) {
    opts.signal?.throwIfAborted();
    let attempt = await store.acquireLease(claim, opts.ttlMs);
    if (!attempt.ok && provenDead(attempt.heldBy, claim))
      attempt = await store.acquireLease(claim, opts.ttlMs, attempt.heldBy.holder);
    if (attempt.ok) return hold(store, claim, opts);
    const left = started + waitMs - Date.now();
    if (left <= 0) throw new LeaseHeldError(attempt.heldBy, waitMs);
    if (!told) {
      told = true;
      opts.onWait?.(attempt.heldBy);
    }
    // Poll rather than sleep until expiresAt: the holder may let go early, and the store's clock is the judge.
    await sleep(Math.min(pollInterval(opts.ttlMs), left), opts.signal);
  }
}

function hold(store: LeaseStore, claim: LeaseClaim, opts: WriterLeaseOptions): HeldLease {
  const lost = new AbortController();
  let stopped = false;
  // One renewal at a time: a beat that has not been answered (a database that does not answer) is not
  // stacked on by the next one.
  let renewing: Promise<void> | undefined;
  const renew = async () => {
    try {
      const renewed = await store.acquireLease(claim, opts.ttlMs);
      if (renewed.ok) opts.onRenewed?.();
      if (renewed.ok || stopped) return;
      clearInterval(beat);
      lost.abort(new LeaseLostError(renewed.heldBy));
      opts.onLost?.(renewed.heldBy);
    } catch (err) {
      if (!stopped) opts.onRenewError?.(err);
    }
  };
  const beat = setInterval(() => {
    renewing ??= renew().finally(() => {
      renewing = undefined;
    });
  }, opts.ttlMs / 3);
  // The heartbeat alone never keeps a process alive.
  beat.unref();
  return {
    holder: claim.holder,
    lost: lost.signal,
    async release() {
      stopped = true;
      clearInterval(beat);
      await renewing;
      if (!lost.signal.aborted) await store.releaseLease(claim.holder);
    },
  };
}

/** This process as a lease holder: a new random id every time (never pid@host; docs/architecture.md, Lease). */
export function localClaim(): LeaseClaim {
  return { holder: randomUUID(), pid: process.pid, hostname: hostname(), scope: localScope() };
}

let scope: string | undefined;
/** This boot and pid namespace (Linux); '' elsewhere, where no holder is ever proven dead by its pid. */
export function localScope(): string {
  if (scope === undefined) {
    try {
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      scope = `${boot}/${readlinkSync('/proc/self/ns/pid')}`;
    } catch {
      scope = '';
    }
  }
  return scope;
}

function provenDead(h: WriterLease, me: LeaseClaim): boolean {
  if (h.scope === '' || h.scope !== me.scope || h.pid === process.pid) return false;
  try {
    process.kill(h.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function pollInterval(ttlMs: number): number {
  return Math.max(50, Math.min(1000, ttlMs / 4));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
