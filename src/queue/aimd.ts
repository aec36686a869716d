// Additive-increase / multiplicative-decrease of the request rate, as TCP does with its window: a 429
// halves the rate, then every second without one gives back a tenth of the configured rate. Pure: the
// rate is a function of (state, now), and the state changes only on a 429.

export interface AimdConfig {
  /** The configured rate, and the ceiling of the climb. */
  readonly targetRate: number;
  /** The floor of the decrease. */
  readonly minRate: number;
  /** Multiplier on a 429. */
  readonly decreaseFactor: number;
  /** Rate regained per second of 429-free operation. */
  readonly increasePerSec: number;
}

export interface AimdState {
  /** The rate right after the last decrease (or the target). */
  readonly rate: number;
  /** Epoch ms from which the additive climb accrues (the end of the pause that followed the 429). */
  readonly since: number;
}

export function aimdConfig(
  targetRate: number,
  minRate = Math.min(targetRate, Math.max(0.1, targetRate / 64)),
): AimdConfig {
  return { targetRate, minRate, decreaseFactor: 0.5, increasePerSec: targetRate * 0.1 };
}

export function aimdInitial(cfg: AimdConfig, now: number): AimdState {
  return { rate: cfg.targetRate, since: now };
}

/** The rate at `now`. */
export function aimdRate(cfg: AimdConfig, state: AimdState, now: number): number {
  const climbedSec = Math.max(0, now - state.since) / 1000;
  return Math.min(cfg.targetRate, state.rate + cfg.increasePerSec * climbedSec);
}

/** After a 429 seen at `now`: the rate reached by then, decreased; the climb restarts at `resumeAt`. */
export function aimdDecrease(cfg: AimdConfig, state: AimdState, now: number, resumeAt: number = now): AimdState {
  const rate = Math.max(cfg.minRate, aimdRate(cfg, state, now) * cfg.decreaseFactor);
  return { rate, since: Math.max(now, resumeAt) };
}
