// The rate-aware request queue (docs/architecture.md, Queue): every marketplace request goes through `schedule`,
// which waits for a token, respects priority, retries what is safe to retry, and on a 429 pauses the whole
// queue and lowers the rate (AIMD).
//
// How a request moves: a p-queue of concurrency 1 (the dispatcher) admits requests one at a time in
// priority order. The admitted one takes a concurrency slot, waits out any pause, takes a token, and only
// then leaves the dispatcher to be sent. The dispatcher is paused while every slot is taken, so the next
// request is chosen when it can actually go, not earlier: a late high-priority request overtakes everything
// still waiting. A request backing off between attempts holds neither a slot nor the dispatcher.
import PQueue from 'p-queue';
import type { Logger } from '../log/logger.ts';
import {
  aimdAdvertised,
  aimdBusy,
  aimdConfig,
  aimdDecrease,
  aimdIdle,
  aimdInitial,
  aimdRate,
  type AimdConfig,
  type AimdState,
} from './aimd.ts';
import { backoffCeiling, backoffDelay } from './backoff.ts';
import { QueueClearedError } from './queue-cleared-error.ts';
import type { QueueEvent } from './queue-event.ts';
import {
  resolveRequestQueueOptions,
  type RequestQueueOptions,
  type ResolvedRequestQueueOptions,
} from './request-queue-options.ts';
import type { RequestMeta, RequestScheduler } from './request-scheduler.ts';
import { type SendFence, SendFences } from './send-fence.ts';
import { advertOf, classify, type RetryDecision } from './retry-policy.ts';
import { TokenBucket } from './token-bucket.ts';
import { laneBoost } from './urgent-lane.ts';

export interface RequestQueueStats {
  /** Requests waiting to go on the wire (queued, held by a pause, or backing off before a retry). */
  readonly size: number;
  /** Requests on the wire. */
  readonly pending: number;
  readonly isPaused: boolean;
  /** Epoch ms the current pause ends, or null. */
  readonly pausedUntil: number | null;
  /** Requests per second allowed right now (climbing, advertised, or lowered by a 429). */
  readonly currentRate: number;
  /** The limit the marketplace advertises, or null when it says nothing. */
  readonly advertisedRate: number | null;
  /** Just below the rate of the last 429 (the climb stops there), or null before one. */
  readonly holdRate: number | null;
  /** Requests sent, every attempt counted. */
  readonly requests: number;
  readonly retries: number;
  /** 429 answers received. */
  readonly rateLimited: number;
  /** Requests that gave up (their error went to the caller). */
  readonly failures: number;
}

export class RequestQueue {
  readonly options: ResolvedRequestQueueOptions;
  readonly #log: Logger;
  readonly #dispatcher = new PQueue({ concurrency: 1 });
  /** Admitted requests: on the wire, or holding a slot while they wait for their token. */
  #slotsTaken = 0;
  readonly #bucket: TokenBucket;
  readonly #aimdConfig: AimdConfig;
  #aimd: AimdState;
  /** Bumps on each rate decrease: a 429 for a request admitted before it belongs to the same episode. */
  #epoch = 0;
  #consecutive429 = 0;
  #pausedUntil = 0;
  #resumeUnannounced = false;
  #waiting = 0;
  #onWire = 0;
  #active = 0;
  #idleWaiters: (() => void)[] = [];
  #closed = false;
  /** The requests not yet settled, for clear(): each one's abort, and what it asks for. */
  #aborts = new Map<AbortController, RequestMeta>();
  #requests = 0;
  #retries = 0;
  #rateLimited = 0;
  #failures = 0;
  readonly #fences = new SendFences();

  constructor(opts: RequestQueueOptions) {
    this.options = resolveRequestQueueOptions(opts);
    const { clock, ratePerSec, startRatePerSec, startHoldPerSec, increasePerSec, burst, startTokens } = this.options;
    const { minRatePerSec, logger } = this.options;
    this.#log = logger.child({ component: 'request-queue' });
    this.#bucket = new TokenBucket({
      ratePerSec: startRatePerSec,
      capacity: burst,
      now: clock.now(),
      tokens: startTokens,
    });
    this.#aimdConfig = aimdConfig({
      ceiling: ratePerSec === 'auto' ? Number.POSITIVE_INFINITY : ratePerSec,
      minRate: minRatePerSec,
      increasePerSec,
    });
    this.#aimd = aimdInitial(this.#aimdConfig, clock.now(), startRatePerSec, startHoldPerSec);
  }

  /** The hook handed to the marketplace client; an arrow property, so it can be passed around unbound. */
  readonly schedule: RequestScheduler = <T>(meta: RequestMeta, send: () => Promise<T>): Promise<T> =>
    this.#run(meta, send);

  stats(): RequestQueueStats {
    const now = this.options.clock.now();
    const isPaused = now < this.#pausedUntil;
    return {
      size: this.#waiting,
      pending: this.#onWire,
      isPaused,
      pausedUntil: isPaused ? this.#pausedUntil : null,
      currentRate: aimdRate(this.#aimdConfig, this.#aimd, now),
      advertisedRate: Number.isFinite(this.#aimd.advertised) ? this.#aimd.advertised : null,
      holdRate: Number.isFinite(this.#aimd.hold) ? this.#aimd.hold : null,
      requests: this.#requests,
      retries: this.#retries,
      rateLimited: this.#rateLimited,
      failures: this.#failures,
    };
  }

  /** Resolves when no request is waiting, backing off or on the wire. */
  onIdle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Drops every request not yet on the wire: each rejects with QueueClearedError. Requests on the wire
   * finish (their result or error still reaches the caller) but are not retried.
   */
  clear(): void {
    for (const [ctl, meta] of this.#aborts) ctl.abort(new QueueClearedError(meta.method, meta.path));
    this.#dispatcher.clear();
  }

  /**
   * From now until the returned removal, every request passes `fence` when it leaves (after its token, before the
   * wire): one it refuses is dropped, never sent, its error going to the caller. When the fence closes (the writer
   * lease is lost), every request still waiting is dropped at once (clear()).
   */
  fence(fence: SendFence): () => void {
    return this.#fences.add(fence, () => this.clear());
  }

  /** clear(), and from now on every request rejects at once with QueueClearedError: the process is stopping. */
  close(): void {
    this.#closed = true;
    this.clear();
  }

  async #run<T>(meta: RequestMeta, send: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new QueueClearedError(meta.method, meta.path);
    const { maxAttempts, backoff, clock, random } = this.options;
    const priority = (meta.priority ?? 0) + laneBoost();
    const ctl = new AbortController();
    this.#aborts.set(ctl, meta);
    this.#active++;
    this.#waiting++;
    let waiting = true;
    try {
      for (let attempt = 1; ; attempt++) {
        const { epoch, windowSeq } =
          (!ctl.signal.aborted && this.#admitNow()) || (await this.#admit(priority, ctl.signal));
        if (!this.#fences.empty) await this.#passFences(meta, attempt);
        this.#waiting--;
        waiting = false;
        this.#onWire++;
        this.#requests++;
        this.#emit({ type: 'request', method: meta.method, path: meta.path, attempt });
        let result: T;
        try {
          result = await send();
        } catch (err) {
          this.#observe(err);
          this.#leaveWire();
          const decision = this.#capWait(meta, classify(err, meta));
          if (decision.rateLimited) {
            this.#learnWindow(err, decision, windowSeq);
            this.#onRateLimited(meta, decision, epoch);
          }
          if (!decision.retry || attempt >= maxAttempts || ctl.signal.aborted) {
            const reason = !decision.retry
              ? decision.reason
              : ctl.signal.aborted
                ? 'queue cleared'
                : `${decision.reason}; ${attempt} attempts made`;
            this.#fail(meta, attempt, reason, err);
            throw err;
          }
          // A 429 waits for the queue-wide pause, not for its own backoff; a 503 with Retry-After waits at least
          // that long.
          const delayMs = decision.rateLimited
            ? 0
            : Math.max(
                backoffDelay({ attempt: attempt - 1, baseMs: backoff.baseMs, maxMs: backoff.maxMs, random }),
                decision.retryAfterMs ?? 0,
              );
          this.#retries++;
          this.#waiting++;
          waiting = true;
          this.#emit({
            type: 'retry',
            method: meta.method,
            path: meta.path,
            attempt,
            delayMs,
            reason: decision.reason,
          });
          this.#log.debug(
            { method: meta.method, path: meta.path, attempt, delayMs, reason: decision.reason },
            'retrying request',
          );
          if (delayMs > 0) await clock.sleep(delayMs, ctl.signal);
          continue;
        }
        this.#observe(result);
        this.#leaveWire();
        this.#consecutive429 = 0;
        return result;
      }
    } finally {
      if (waiting) this.#waiting--;
      this.#aborts.delete(ctl);
      this.#active--;
      if (this.#active === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
    }
  }

  /**
   * A slot and a token at once, when nothing waits in the dispatcher and a slot is free: no request could be
   * overtaken, so the dispatcher's task and promise are spared. undefined: the request queues as usual.
   */
  #admitNow(): Admission | undefined {
    const d = this.#dispatcher;
    if (d.size > 0 || d.pending > 0 || d.isPaused || this.#slotsTaken >= this.options.concurrency) return undefined;
    const go = this.#tryGo(this.options.clock.now());
    if (typeof go === 'number') return undefined;
    this.#takeSlot();
    return go;
  }

  /** Resolves holding a slot and a token, with the rate epoch it was admitted under. */
  #admit(priority: number, signal: AbortSignal): Promise<Admission> {
    return new Promise<Admission>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      // Not p-queue's own `signal` option: it races the running task and could lose a slot already taken.
      void this.#dispatcher.add(
        async () => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) return; // already rejected while queued
          this.#takeSlot();
          try {
            resolve(await this.#waitForGo(signal));
          } catch (err) {
            this.#releaseSlot();
            reject(err);
          }
        },
        { priority },
      );
    });
  }

  #takeSlot(): void {
    this.#slotsTaken++;
    // Synchronously, inside the running dispatcher task: the next task cannot start before this pause.
    if (this.#slotsTaken >= this.options.concurrency) this.#dispatcher.pause();
  }

  #releaseSlot(): void {
    this.#slotsTaken--;
    if (this.#dispatcher.isPaused && this.#slotsTaken < this.options.concurrency) this.#dispatcher.start();
  }

  /** Waits out any pause and the window, takes a token; returns the rate epoch as of that moment. */
  async #waitForGo(signal: AbortSignal): Promise<Admission> {
    const { clock } = this.options;
    for (;;) {
      const go = this.#tryGo(clock.now());
      if (typeof go !== 'number') return go;
      await clock.sleep(go, signal);
    }
  }

  /** One look at `now`: the admission (a token taken) when the request may go, else the ms to wait first. */
  #tryGo(now: number): Admission | number {
    if (now < this.#pausedUntil) return this.#pausedUntil - now;
    const windowWait = this.options.window?.wait(now) ?? 0;
    if (windowWait > 0) return windowWait;
    const rate = aimdRate(this.#aimdConfig, this.#aimd, now);
    if (rate !== this.#bucket.rate) this.#bucket.setRate(rate, now);
    const wait = this.#bucket.take(now);
    if (this.#aimdConfig.probing) {
      // Climb only while the rate is what holds requests back: one waits for a token, or others queue behind.
      this.#aimd =
        wait > 0 || this.#waiting > 1 ? aimdBusy(this.#aimd, now) : aimdIdle(this.#aimdConfig, this.#aimd, now);
    }
    if (wait > 0) return wait;
    // In the same turn as the check above: no other queue sharing the window can slip in between.
    const windowSeq = this.options.window?.record(now) ?? -1;
    if (this.#resumeUnannounced) {
      this.#resumeUnannounced = false;
      this.#emit({ type: 'resumed', rate });
      this.#log.info({ rate }, 'request queue resumed');
    }
    // Read here, with the token: a 429 handled in the microtasks before our caller resumes is not ours.
    return { epoch: this.#epoch, windowSeq };
  }

  #onRateLimited(meta: RequestMeta, decision: RetryDecision, epoch: number): void {
    const { clock, rateLimitFallbackMs, backoff } = this.options;
    const now = clock.now();
    this.#rateLimited++;
    // Only the first 429 of an episode counts: the requests already on the wire when it came back were
    // sent at the old rate, and halving the rate once for each of them would overreact.
    const fresh = epoch === this.#epoch;
    let pauseMs = decision.retryAfterMs ?? 0;
    if (fresh) {
      this.#epoch++;
      this.#consecutive429++;
      pauseMs =
        decision.retryAfterMs ??
        Math.min(
          backoff.maxMs,
          backoffCeiling(this.#consecutive429 - 1, rateLimitFallbackMs, Number.POSITIVE_INFINITY),
        );
    }
    const until = Math.max(this.#pausedUntil, now + pauseMs);
    if (fresh) {
      this.#aimd = aimdDecrease(this.#aimdConfig, this.#aimd, now, until, this.#consecutive429 > 1);
      this.#bucket.setRate(this.#aimd.rate, now);
    }
    this.#emit({
      type: 'rate-limited',
      method: meta.method,
      path: meta.path,
      retryAfterMs: decision.retryAfterMs ?? null,
      rate: this.#aimd.rate,
      firstOfEpisode: fresh,
    });
    if (until <= this.#pausedUntil) return;
    this.#pausedUntil = until;
    // The climb starts when the pause ends, and nothing is saved up during it: one request, then the rate.
    if (until > this.#aimd.since) this.#aimd = { ...this.#aimd, since: until };
    this.#bucket.reset(1, until);
    this.#resumeUnannounced = true;
    this.#emit({ type: 'paused', until, ms: until - now });
    this.#log.warn(
      {
        method: meta.method,
        path: meta.path,
        pauseMs: until - now,
        rate: this.#aimd.rate,
        retryAfterMs: decision.retryAfterMs,
      },
      'rate limited: request queue paused',
    );
  }

  /**
   * A 429 that says nothing of a limit (no rate headers) and bans for at least a window is a window spent: the
   * window budget learns it from what was sent before the refused request, and holds every queue sharing it
   * until the ban ends. Other 429s are left to the pause and AIMD.
   */
  #learnWindow(err: unknown, decision: RetryDecision, windowSeq: number): void {
    const { window, clock } = this.options;
    const banMs = decision.retryAfterMs;
    if (!window || advertOf(err) !== undefined || banMs === undefined || banMs < window.learnWindowMs) return;
    const now = clock.now();
    const before = window.state(now);
    const limit = window.learn(windowSeq, banMs, now);
    const after = window.state(now);
    if (before.limit === limit && before.bannedUntil === after.bannedUntil) return;
    this.#emit({ type: 'window-learnt', limit, bannedUntil: after.bannedUntil });
    if (limit !== null && before.limit !== limit)
      this.#log.warn(
        { requests: limit.requests, seconds: limit.seconds, banMs },
        `the marketplace refused a request and banned this address for ${seconds(banMs)}; offersync now sends ` +
          `at most ${limit.requests} requests per ${limit.seconds} s from it ` +
          '(set rateLimit.window if you know the limit)',
      );
  }

  /**
   * A wait the marketplace asks for, cut to maxRetryAfterMs: a Retry-After of years (or an HTTP date in 9999)
   * would otherwise pause the queue for good. Warned once per answer that asked for more.
   */
  #capWait(meta: RequestMeta, decision: RetryDecision): RetryDecision {
    const max = this.options.maxRetryAfterMs;
    const asked = decision.retryAfterMs;
    if (asked === undefined || asked <= max) return decision;
    this.#log.warn(
      { method: meta.method, path: meta.path, askedMs: asked, waitMs: max },
      `the marketplace asked offersync to wait ${seconds(asked)}; offersync waits ${seconds(max)} ` +
        '(the most rateLimit.maxRetryAfterSeconds allows)',
    );
    return { ...decision, retryAfterMs: max };
  }

  /**
   * What an answer said about the limit: an advertised rate is taken (under the ceiling and any hold), and the
   * requests it says are left cap the bucket, less those still on the wire (they will spend them first).
   */
  #observe(answer: unknown): void {
    const advert = advertOf(answer);
    if (!advert) return;
    const now = this.options.clock.now();
    if (advert.ratePerSec !== undefined) {
      const before = this.#aimd.advertised;
      // A limit of one request per week would be a wait of a week for each: no slower than one per longest wait.
      const slowest = 1000 / this.options.maxRetryAfterMs;
      if (advert.ratePerSec < slowest && before !== slowest)
        this.#log.warn(
          { advertised: advert.ratePerSec, rate: slowest },
          `the marketplace advertises ${advert.ratePerSec} requests/s; offersync sends one request every ` +
            `${seconds(this.options.maxRetryAfterMs)} at the slowest (rateLimit.maxRetryAfterSeconds)`,
        );
      this.#aimd = aimdAdvertised(this.#aimdConfig, this.#aimd, Math.max(slowest, advert.ratePerSec), now);
      if (this.#aimd.advertised !== before) {
        this.#bucket.setRate(aimdRate(this.#aimdConfig, this.#aimd, now), now);
        this.#log.info(
          { advertised: advert.ratePerSec, rate: aimdRate(this.#aimdConfig, this.#aimd, now) },
          'the marketplace advertises its rate limit',
        );
      }
    }
    if (advert.remaining !== undefined) this.#bucket.cap(Math.max(0, advert.remaining - (this.#onWire - 1)), now);
  }

  /** The fences, holding the slot admitted; a refusal gives the slot back and fails the request unsent. */
  async #passFences(meta: RequestMeta, attempt: number): Promise<void> {
    try {
      await this.#fences.pass();
    } catch (err) {
      this.#releaseSlot();
      this.#fail(meta, attempt, 'fenced: not sent', err);
      throw err;
    }
  }

  #leaveWire(): void {
    this.#onWire--;
    this.#releaseSlot();
  }

  #fail(meta: RequestMeta, attempts: number, reason: string, err: unknown): void {
    this.#failures++;
    this.#emit({ type: 'failed', method: meta.method, path: meta.path, attempts, reason });
    this.#log.debug({ method: meta.method, path: meta.path, attempts, reason, err }, 'request failed');
  }

  #emit(e: QueueEvent): void {
    this.options.onEvent?.(e);
  }
}

/** What a request was admitted under: the rate epoch, and its place among the window budget's sends (-1: none). */
interface Admission {
  readonly epoch: number;
  readonly windowSeq: number;
}

/** "999999999 s" as a person reads it in a warning. */
function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
