// The writer lease (docs/architecture.md, Lease): one writer per state db. It is held under a random instance id,
// renewed by a heartbeat every ttl/3 and expires on its own, so a killed holder locks nobody out for longer
// than the TTL. Waiting for it (the daemon, --lock-timeout) and noticing its loss live here; the store only
// answers "yours until T" or "held by X until T", and renews only the epoch it granted.
//
// A paused process (SIGSTOP, a frozen container, a sleeping laptop) does not know it was paused: so every request
// passes `pass()` as it leaves the queue. A gap since the last confirmed renewal longer than the TTL on the
// monotonic clock is a loss, whatever the store says: the run ends and the next one plans afresh. The monotonic
// clock stands still while the machine sleeps, the wall clock does not (but it can step): a wall gap that looks
// too long is settled by asking the store, which refuses a renewal once another instance took the lease.
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LeaseClaim, WriterLease } from './records.ts';
import type { StateStore } from './state-store.ts';

/** What the lease needs of a store: any StateStore implementation will do. */
export type LeaseStore = Pick<StateStore, 'acquireLease' | 'renewLease' | 'releaseLease'>;

/** The clocks a holder measures the gap between renewals by; tests pass fakes. */
export interface LeaseGapClocks {
  /** ms, never steps; stands still while the machine sleeps (Linux CLOCK_MONOTONIC). Default performance.now. */
  monotonic(): number;
  /** Epoch ms; runs on while the machine sleeps, but can step. Default Date.now. */
  wall(): number;
}

const systemClocks: LeaseGapClocks = { monotonic: () => performance.now(), wall: () => Date.now() };

export interface WriterLeaseOptions {
  /** The lease runs out this long after its last renewal; the heartbeat renews it every ttlMs / 3. */
  readonly ttlMs: number;
  /** How long to wait while another instance holds it: 0 (default) fails at once, Infinity waits for good. */
  readonly waitMs?: number;
  /** Called once when the lease is found held and the caller is going to wait for it. */
  readonly onWait?: (heldBy: WriterLease) => void;
  /**
   * Called once when the lease is lost: another holder took it (heldBy; null when it let go again since), or this
   * process was paused past the TTL. It must stop writing.
   */
  readonly onLost?: (heldBy: WriterLease | null) => void;
  /** Called when a heartbeat cannot reach the store; it tries again at the next beat. */
  readonly onRenewError?: (err: unknown) => void;
  /** Called after each renewal the store confirmed (the store answers again after an outage). */
  readonly onRenewed?: () => void;
  /** Aborting stops a wait: acquireWriterLease rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Default: a new random instance id with this process's pid, host name and scope. */
  readonly claim?: LeaseClaim;
  /** Default: performance.now and Date.now. */
  readonly clocks?: LeaseGapClocks;
}

export interface HeldLease {
  readonly holder: string;
  /** Aborted (with a LeaseLostError) when another instance took the lease: stop starting writes. */
  readonly lost: AbortSignal;
  /**
   * Resolves when a request may leave now; rejects with a LeaseLostError once the lease is lost (or with why the
   * store could not confirm it). The request queue calls it for every request, after its rate token.
   */
  pass(): Promise<void>;
  /** Aborted when the lease is lost; the queue drops every request still waiting (the send fence's `closed`). */
  readonly closed: AbortSignal;
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

/** Another instance took the lease while this one held it, or this one was paused past the TTL. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(
    readonly heldBy: WriterLease | null,
    /** Set when no renewal was confirmed for longer than the TTL (a pause, or a state db that did not answer). */
    readonly pausedMs?: number,
  ) {
    super(
      pausedMs !== undefined
        ? `lost the writer lease: no renewal confirmed for ${formatMs(Math.round(pausedMs))}, longer than ` +
            'state.leaseTtlMs (this process was paused, or the state db did not answer); nothing more is sent, ' +
            'the next run plans afresh'
        : heldBy
          ? `lost the writer lease to ${describeHolder(heldBy)}: no further write is started`
          : 'lost the writer lease: another offersync held it and let go of it since; nothing more is sent',
    );
  }
}

/** The store did not answer when a request needed the lease confirmed: the request is not sent. */
export class LeaseUnconfirmedError extends Error {
  override readonly name = 'LeaseUnconfirmedError';
  constructor(cause: unknown) {
    super(
      'the state db did not confirm the writer lease (the last renewal is too old): the request was not sent; ' +
        'it is tried again at the next run',
      { cause },
    );
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
  const clocks = opts.clocks ?? systemClocks;
  for (;;) {
    opts.signal?.throwIfAborted();
    // Read before asking: the store's expiry counts from a moment after this one.
    let asked = readClocks(clocks);
    let attempt = await store.acquireLease(claim, opts.ttlMs);
    if (!attempt.ok && provenDead(attempt.heldBy, claim)) {
      asked = readClocks(clocks);
      attempt = await store.acquireLease(claim, opts.ttlMs, attempt.heldBy.holder);
    }
    if (attempt.ok) return hold(store, claim, attempt.epoch, asked, opts);
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

interface ClockReading {
  readonly mono: number;
  readonly wall: number;
}

function readClocks(c: LeaseGapClocks): ClockReading {
  return { mono: c.monotonic(), wall: c.wall() };
}

/** A renewal is due this long after the last one the store confirmed: a request waits for it first. */
const CONFIRM_AFTER = 2 / 3;

function hold(store: LeaseStore, claim: LeaseClaim, epoch: number, asked: ClockReading, opts: WriterLeaseOptions) {
  const ttl = opts.ttlMs;
  const clocks = opts.clocks ?? systemClocks;
  const lost = new AbortController();
  let stopped = false;
  // When the last renewal the store confirmed was asked for: the lease is ours until at least ttl after it.
  let confirmed = asked;
  // One renewal at a time: a beat that has not been answered (a database that does not answer) is not
  // stacked on by the next one, and a request waiting for a confirmation shares the beat's.
  let renewing: Promise<void> | undefined;
  let lastRenewError: unknown;
  const lose = (err: LeaseLostError) => {
    if (lost.signal.aborted) return;
    clearInterval(beat);
    lost.abort(err);
    opts.onLost?.(err.heldBy);
  };
  const pausedFor = (now: ClockReading): number | undefined => {
    const gap = now.mono - confirmed.mono;
    return gap > ttl ? gap : undefined;
  };
  const renew = async () => {
    if (stopped || lost.signal.aborted) return;
    const at = readClocks(clocks);
    const paused = pausedFor(at);
    if (paused !== undefined) return lose(new LeaseLostError(null, paused));
    try {
      const renewed = await store.renewLease(claim.holder, epoch, ttl);
      lastRenewError = undefined;
      if (stopped || lost.signal.aborted) return;
      if (!renewed.ok) return lose(new LeaseLostError(renewed.heldBy));
      confirmed = at;
      opts.onRenewed?.();
    } catch (err) {
      lastRenewError = err;
      if (!stopped) opts.onRenewError?.(err);
    }
  };
  const renewNow = (): Promise<void> => {
    renewing ??= renew().finally(() => {
      renewing = undefined;
    });
    return renewing;
  };
  const beat = setInterval(() => void renewNow(), ttl / 3);
  // The heartbeat alone never keeps a process alive.
  beat.unref();
  /** undefined: fine to send now; 'confirm': ask the store first. A pause past the TTL is a loss. */
  const verdict = (): 'confirm' | undefined => {
    if (lost.signal.aborted) throw lost.signal.reason;
    const now = readClocks(clocks);
    const paused = pausedFor(now);
    if (paused !== undefined) {
      lose(new LeaseLostError(null, paused));
      throw lost.signal.reason;
    }
    const gap = Math.max(now.mono - confirmed.mono, now.wall - confirmed.wall);
    return gap < ttl * CONFIRM_AFTER ? undefined : 'confirm';
  };
  return {
    holder: claim.holder,
    lost: lost.signal,
    closed: lost.signal,
    async pass() {
      if (verdict() === undefined) return;
      await renewNow();
      if (verdict() === undefined) return;
      throw new LeaseUnconfirmedError(lastRenewError);
    },
    async release() {
      stopped = true;
      clearInterval(beat);
      await renewing;
      if (!lost.signal.aborted) return await store.releaseLease(claim.holder, epoch);
      // Lost to another holder: nothing of ours to let go. Lost for want of a renewal: the row may still be ours (at
      // our epoch), let go if the store answers; it expires on its own if not (the store may be what is down).
      const reason: unknown = lost.signal.reason;
      if (reason instanceof LeaseLostError && reason.heldBy === null)
        await store.releaseLease(claim.holder, epoch).catch(() => undefined);
    },
  } satisfies HeldLease;
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
