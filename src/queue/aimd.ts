// Additive-increase / multiplicative-decrease of the request rate, as TCP does with its window, extended to
// find a limit nobody told us. Pure: the rate is a function of (state, now); the state changes
// only on a 429 or when the marketplace advertises its limit.
//
// - The rate climbs additively from where it starts, up to the hard ceiling (a configured rate).
// - A 429 sets a hold just below the rate it came at: the climb stops there from then on. With a configured
//   rate the rate also halves and climbs back. A probing climb (ratePerSec: auto) was under the limit a moment
//   ago, so the hold is already close to a safe rate: it goes straight there, and halves only when the 429s
//   keep coming (`severe`: the first request after the pause was refused too).
// - An advertised limit (X-RateLimit-*, IETF RateLimit-Policy) is taken at once, under the ceiling and hold.

export interface AimdConfig {
  /** The configured rate: never exceeded. Infinity when the limit is to be found (auto). */
  readonly ceiling: number;
  /** The floor of the decrease. */
  readonly minRate: number;
  /** Multiplier on a 429. */
  readonly decreaseFactor: number;
  /** The hold after a 429: this share of the rate it came at. */
  readonly holdFactor: number;
  /** Rate regained per second of 429-free operation. */
  readonly increasePerSec: number;
  /** True for ratePerSec: auto (the first 429 ends the climb at the hold). */
  readonly probing: boolean;
}

export interface AimdState {
  /** The rate right after the last change. */
  readonly rate: number;
  /** Epoch ms from which the additive climb accrues (the end of the pause that followed the 429). */
  readonly since: number;
  /** Just below the rate of the last 429; Infinity before one. */
  readonly hold: number;
  /** What the marketplace advertises; Infinity when it does not. */
  readonly advertised: number;
}

export interface AimdOptions {
  /** The hard ceiling: a configured rate, or Infinity (probing). */
  readonly ceiling: number;
  /** Default: ceiling / 64 (at least 0.1, at most the ceiling); 0.1 when probing. */
  readonly minRate?: number;
  /** Default: a tenth of the ceiling; 5 when probing. */
  readonly increasePerSec?: number;
}

export function aimdConfig(opts: AimdOptions): AimdConfig {
  const probing = !Number.isFinite(opts.ceiling);
  return {
    ceiling: opts.ceiling,
    minRate: opts.minRate ?? (probing ? 0.1 : Math.min(opts.ceiling, Math.max(0.1, opts.ceiling / 64))),
    decreaseFactor: 0.5,
    holdFactor: 0.9,
    increasePerSec: opts.increasePerSec ?? (probing ? 5 : opts.ceiling * 0.1),
    probing,
  };
}

/** Starts at `start` (default: the ceiling), under the ceiling, and under `hold` (one a run before found). */
export function aimdInitial(
  cfg: AimdConfig,
  now: number,
  start: number = cfg.ceiling,
  hold: number = Number.POSITIVE_INFINITY,
): AimdState {
  // A probing climb starts idle: it waits for requests that need more than the start rate.
  const since = cfg.probing ? Number.POSITIVE_INFINITY : now;
  return { rate: Math.min(cfg.ceiling, hold, start), since, hold, advertised: Number.POSITIVE_INFINITY };
}

/**
 * The queue is not using its rate (nothing waits for a token): the climb stops where it is, as TCP stops
 * growing a window the application does not fill. Otherwise an idle daemon would "climb" to any rate.
 */
export function aimdIdle(cfg: AimdConfig, state: AimdState, now: number): AimdState {
  if (state.since === Number.POSITIVE_INFINITY) return state;
  return { ...state, rate: aimdRate(cfg, state, now), since: Number.POSITIVE_INFINITY };
}

/** Requests wait for tokens again: the climb goes on from `now`. */
export function aimdBusy(state: AimdState, now: number): AimdState {
  return state.since === Number.POSITIVE_INFINITY ? { ...state, since: now } : state;
}

/** The rate at `now`. */
export function aimdRate(cfg: AimdConfig, state: AimdState, now: number): number {
  const climbedSec = state.since === Number.POSITIVE_INFINITY ? 0 : Math.max(0, now - state.since) / 1000;
  return Math.min(cfg.ceiling, state.hold, state.advertised, state.rate + cfg.increasePerSec * climbedSec);
}

/** After a 429 seen at `now`: hold below the rate reached by then, decrease; the climb restarts at `resumeAt`. */
export function aimdDecrease(
  cfg: AimdConfig,
  state: AimdState,
  now: number,
  resumeAt: number = now,
  severe = false,
): AimdState {
  const reached = aimdRate(cfg, state, now);
  const hold = Math.max(cfg.minRate, reached * cfg.holdFactor);
  const rate = cfg.probing && !severe ? hold : Math.max(cfg.minRate, reached * cfg.decreaseFactor);
  return { ...state, rate, hold, since: Math.max(now, resumeAt) };
}

/** The marketplace said it allows `ratePerSec`: go there at once (under the ceiling and any hold). */
export function aimdAdvertised(cfg: AimdConfig, state: AimdState, ratePerSec: number, now: number): AimdState {
  if (ratePerSec === state.advertised) return state;
  return { ...state, advertised: ratePerSec, rate: Math.min(cfg.ceiling, state.hold, ratePerSec), since: now };
}
