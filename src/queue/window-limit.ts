// A limit of N requests per W seconds, as a marketplace whose site counts every request of an address in fixed
// windows has it (and bans the address for minutes after the first one too many), and how offersync reads one
// off the requests it sent before the 429 that ended a window. Pure.

export interface WindowLimit {
  /** Requests the marketplace takes in one window. */
  readonly requests: number;
  readonly seconds: number;
}

/** Share of a window's requests left unused, and of its length added, against clock skew and jitter. */
export const WINDOW_MARGIN = 0.03;

/**
 * Added to the window besides: a request counted when it took its token may reach the marketplace later than
 * the one after it (a busy event loop, a slower route or connection), so two spans apart here may be closer there.
 */
export const WINDOW_SLACK_MS = 500;

/** What the queue sends: fewer requests than the limit, over a window a little longer than its own. */
export function pacedWindow(limit: WindowLimit): { readonly requests: number; readonly ms: number } {
  return {
    requests: Math.max(1, Math.floor(limit.requests * (1 - WINDOW_MARGIN))),
    ms: Math.ceil(limit.seconds * 1000 * (1 + WINDOW_MARGIN)) + WINDOW_SLACK_MS,
  };
}

/**
 * The requests the marketplace let through in the window its 429 ended: of the requests sent before the refused
 * one (`before`, ascending epoch ms; the refused one went at `refusedAt`), those within the `windowMs` before it,
 * and no more than those since that window's start on the clock (windows counted from the epoch, as such sites
 * count). The window's true phase is unknown, so the smaller of the two: a pace of N per W over a sliding window
 * then never puts more than N into any fixed window of the marketplace.
 */
export function learnWindowRequests(before: readonly number[], refusedAt: number, windowMs: number): number {
  const aligned = Math.floor(refusedAt / windowMs) * windowMs;
  let sliding = 0;
  let sinceStart = 0;
  for (const t of before) {
    if (t > refusedAt) continue;
    if (t > refusedAt - windowMs) sliding++;
    if (t >= aligned) sinceStart++;
  }
  return Math.max(1, Math.min(sliding, sinceStart));
}

/**
 * Fewer requests than this before a banning 429 teach no window: no marketplace limits an API to a handful a
 * minute, so that 429 is a ban others on the address earned (another process, the seller's browser), and a
 * window learnt from it would hold every later run to a crawl. The ban is kept all the same.
 */
export const MIN_LEARNT_REQUESTS = 10;

/** The stricter of two limits: the fewer requests per second. */
export function stricterWindow(a: WindowLimit | null, b: WindowLimit | null): WindowLimit | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.requests / b.seconds < a.requests / a.seconds ? b : a;
}

export function isWindowLimit(v: unknown): v is WindowLimit {
  if (typeof v !== 'object' || v === null) return false;
  const { requests, seconds } = v as { requests?: unknown; seconds?: unknown };
  return (
    typeof requests === 'number' &&
    Number.isInteger(requests) &&
    requests >= 1 &&
    typeof seconds === 'number' &&
    Number.isFinite(seconds) &&
    seconds > 0
  );
}
