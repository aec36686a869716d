// The window budget in front of the token bucket (docs/architecture.md, Queue): at most N requests in any W
// seconds once the marketplace's window is known, none while the address is banned, and the log of what was sent
// that a 429 is read against. One budget is shared by every queue that reaches the marketplace from the same
// address (window-budgets.ts), so their requests count together as the marketplace counts them.
import {
  learnWindowRequests,
  MIN_LEARNT_REQUESTS,
  pacedWindow,
  stricterWindow,
  type WindowLimit,
} from './window-limit.ts';

export interface WindowBudgetState {
  /** null until learnt or configured. */
  readonly limit: WindowLimit | null;
  /** Epoch ms the marketplace's ban ends; 0 when none. */
  readonly bannedUntil: number;
  /**
   * Epoch ms of the requests sent within the last paced window, ascending: a process that starts right after
   * another ended must count them, or it spends the same window again.
   */
  readonly recent: readonly number[];
}

export class WindowBudget {
  /** Epoch ms of each request sent, ascending; those before #head are dropped. */
  #sends: number[] = [];
  #head = 0;
  /** Sends dropped from the front of #sends for good: #sends[i] is send number #dropped + i. */
  #dropped = 0;
  #limit: WindowLimit | null = null;
  #bannedUntil = 0;
  /** How long sends are kept: the window a 429 is read over, and at least the paced window. */
  readonly #keepMs: number;

  /** `learnWindowMs`: the window a 429 without rate headers is read over (rateLimit.learnWindowSeconds). */
  constructor(readonly learnWindowMs: number) {
    if (!(learnWindowMs > 0)) throw new RangeError(`WindowBudget: learnWindowMs must be > 0, got ${learnWindowMs}`);
    this.#keepMs = learnWindowMs;
  }

  /** Sends kept in the log (for tests and debugging: it must not grow with the process's age). */
  get kept(): number {
    return this.#sends.length - this.#head;
  }

  state(now: number): WindowBudgetState {
    const span = this.#limit ? pacedWindow(this.#limit).ms : 0;
    const recent = this.#sends.slice(this.#head).filter((t) => t > now - span);
    return { limit: this.#limit, bannedUntil: this.#bannedUntil, recent };
  }

  /**
   * A limit and ban known elsewhere (the state db, another process): the stricter limit, the later ban, and,
   * when this budget has sent nothing yet, the requests sent last (this process's own are counted already).
   */
  adopt(state: WindowBudgetState): void {
    this.#limit = stricterWindow(this.#limit, state.limit);
    this.#bannedUntil = Math.max(this.#bannedUntil, state.bannedUntil);
    if (this.#sends.length === this.#head) this.#sends.push(...[...state.recent].sort((a, b) => a - b));
  }

  /** A limit the seller configured: it replaces what was learnt before (a 429 may still lower it). */
  setLimit(limit: WindowLimit): void {
    this.#limit = limit;
  }

  /** ms before the next request may go (0: now). Records nothing. */
  wait(now: number): number {
    if (now < this.#bannedUntil) return this.#bannedUntil - now;
    if (this.#limit === null) return 0;
    const paced = pacedWindow(this.#limit);
    this.#prune(now);
    const inWindow = this.#countSince(now - paced.ms);
    if (inWindow < paced.requests) return 0;
    // The request that must fall out of the window before another may go.
    const oldest = this.#sends[this.#sends.length - paced.requests] ?? now;
    return Math.max(1, oldest + paced.ms - now + 1);
  }

  /** A request went out at `now`; returns its number among all the sends recorded. */
  record(now: number): number {
    // Here too, not only in wait(): before any limit is known wait() returns early, and a daemon runs for months.
    this.#prune(now);
    this.#sends.push(now);
    return this.#dropped + this.#sends.length - 1;
  }

  /**
   * A 429 without rate headers that bans for `banMs` from `now`: the request refused was send number `refused`
   * (as record() numbered it; -1 or one forgotten: the newest). Learns the window from the sends before it
   * (never raising a known limit; nothing from fewer than MIN_LEARNT_REQUESTS) and holds every request until the
   * ban ends. Returns the limit now in force.
   */
  learn(refused: number, banMs: number, now: number): WindowLimit | null {
    this.#prune(now);
    const end = refused < this.#dropped + this.#head ? this.#sends.length : refused - this.#dropped;
    const before = this.#sends.slice(this.#head, Math.max(this.#head, end));
    const refusedAt = this.#sends[end] ?? now;
    const requests = learnWindowRequests(before, refusedAt, this.learnWindowMs);
    if (requests >= MIN_LEARNT_REQUESTS)
      this.#limit = stricterWindow(this.#limit, { requests, seconds: this.learnWindowMs / 1000 });
    this.#bannedUntil = Math.max(this.#bannedUntil, now + banMs);
    return this.#limit;
  }

  #countSince(from: number): number {
    let n = 0;
    for (let i = this.#sends.length - 1; i >= this.#head && (this.#sends[i] ?? 0) > from; i--) n++;
    return n;
  }

  #prune(now: number): void {
    const keep = Math.max(this.#keepMs, this.#limit ? pacedWindow(this.#limit).ms : 0);
    while (this.#head < this.#sends.length && (this.#sends[this.#head] ?? 0) <= now - keep) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#sends.length) {
      this.#sends = this.#sends.slice(this.#head);
      this.#dropped += this.#head;
      this.#head = 0;
    }
  }
}
