// How long a 429 asks us to wait (docs/architecture.md, Queue). Pure: `now` is passed in, so tables can test it.

/** Above this a reset value is an epoch (seconds, or ms above EPOCH_MS_FLOOR); below, seconds from now. */
const EPOCH_SECONDS_FLOOR = 1e9;
const EPOCH_MS_FLOOR = 1e12;
const NUMBER = /^\s*\d+(\.\d+)?\s*$/;

/** Retry-After: delay-seconds or an HTTP date (RFC 9110 10.2.3). undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (NUMBER.test(value)) return Math.ceil(Number(value) * 1000);
  // An HTTP date names its month; without a letter it is a malformed number, not a date.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** X-RateLimit-Reset: epoch seconds (or ms), or, when small, seconds from now. */
export function parseRateLimitReset(value: string | undefined, now: number): number | undefined {
  if (value === undefined || !NUMBER.test(value)) return undefined;
  const n = Number(value);
  if (n >= EPOCH_MS_FLOOR) return Math.max(0, Math.ceil(n - now));
  if (n >= EPOCH_SECONDS_FLOOR) return Math.max(0, Math.ceil(n * 1000 - now));
  return Math.ceil(n * 1000);
}

/** Retry-After first, else X-RateLimit-Reset, else undefined (the queue then backs off on its own). */
export function retryAfterMs(headers: Readonly<Record<string, string | undefined>>, now: number): number | undefined {
  return parseRetryAfter(headers['retry-after'], now) ?? parseRateLimitReset(headers['x-ratelimit-reset'], now);
}
