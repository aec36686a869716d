// What a marketplace says about its rate limit, read from any of the header families in use (the API
// document shows none): the IETF httpapi draft in its current form (`RateLimit-Policy: "p";q=100;w=60`,
// `RateLimit: "p";r=50;t=30`) and its earlier ones (`RateLimit-Limit` / `-Remaining` / `-Reset`, a
// `limit=, remaining=, reset=` dictionary), and the older X-RateLimit-* trio. Pure: `now` is passed in.
import { parseRateLimitReset } from './retry-after.ts';

export interface RateLimitAdvert {
  /** Requests per second the marketplace allows: a quota over its window. Absent when no quota was given. */
  readonly ratePerSec?: number;
  /** Requests left before it refuses. */
  readonly remaining?: number;
  /** ms until the quota is restored. */
  readonly resetMs?: number;
}

type Headers = Readonly<Record<string, string | undefined>>;

interface Member {
  /** The bare item: a policy name (string) or, in the early drafts, the quota (integer). */
  readonly item: string;
  readonly params: ReadonlyMap<string, string>;
}

/** A structured-field list, loosely: members split on commas, parameters on semicolons, quotes dropped. */
function members(value: string): Member[] {
  return value
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '')
    .map((m) => {
      const [item = '', ...rest] = m.split(';').map((p) => p.trim());
      const params = new Map<string, string>();
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0)
          params.set(
            p.slice(0, eq).trim().toLowerCase(),
            p
              .slice(eq + 1)
              .trim()
              .replace(/^"|"$/g, ''),
          );
      }
      return { item: item.replace(/^"|"$/g, ''), params };
    });
}

function number(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(v)) return undefined;
  return Number(v);
}

/** The strictest quota/window among the members that state both (`q=` or a bare quota, and `w=`). */
function rateOfPolicies(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  let rate: number | undefined;
  for (const m of members(value)) {
    const quota = number(m.params.get('q')) ?? number(m.item);
    const window = number(m.params.get('w'));
    if (quota === undefined || window === undefined || window <= 0) continue;
    rate = Math.min(rate ?? Number.POSITIVE_INFINITY, quota / window);
  }
  return rate;
}

/** A bare limit without a window (`X-RateLimit-Limit: 50`), read over `windowSec`. */
function rateOfLimit(value: string | undefined, windowSec: number): number | undefined {
  if (value === undefined) return undefined;
  const first = members(value)[0];
  const quota = number(first?.item);
  return quota === undefined || quota <= 0 ? undefined : quota / windowSec;
}

/** The current draft's `RateLimit: "p";r=..;t=..`, or draft 7's `limit=.., remaining=.., reset=..`. */
function ietfRemaining(value: string | undefined): { remaining?: number; resetSec?: number } {
  if (value === undefined) return {};
  const ms = members(value);
  const dict = new Map<string, string>();
  for (const m of ms) {
    const eq = m.item.indexOf('=');
    if (eq > 0) dict.set(m.item.slice(0, eq).trim().toLowerCase(), m.item.slice(eq + 1).trim());
  }
  if (dict.has('remaining'))
    return dropUndefined({ remaining: number(dict.get('remaining')), resetSec: number(dict.get('reset')) });
  // Several policies: the one with the fewest requests left is the one that binds.
  let best: { remaining?: number; resetSec?: number } = {};
  for (const m of ms) {
    const r = number(m.params.get('r'));
    if (r === undefined) continue;
    if (best.remaining === undefined || r < best.remaining)
      best = dropUndefined({ remaining: r, resetSec: number(m.params.get('t')) });
  }
  return best;
}

// Read on every answer: a plain loop, no arrays of entries made and dropped.
function dropUndefined<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const k in o) if (o[k] !== undefined) out[k] = o[k];
  return out as T;
}

/**
 * `limitWindowSec`: the window of a bare limit that does not state one (`X-RateLimit-Limit: 50`); these
 * headers never say, the marketplaces that send them mostly count per second, and a wrong guess is caught
 * by the first 429 (the queue then holds below it). undefined when the answer says nothing about a limit.
 */
export function readRateLimitAdvert(
  headers: Headers,
  now: number,
  limitWindowSec: number,
): RateLimitAdvert | undefined {
  const ietf = ietfRemaining(headers.ratelimit);
  const ratePerSec =
    rateOfPolicies(headers['ratelimit-policy']) ??
    rateOfPolicies(headers['ratelimit-limit']) ??
    rateOfPolicies(headers['x-ratelimit-limit']) ??
    rateOfLimit(headers['ratelimit-limit'], limitWindowSec) ??
    rateOfLimit(headers['x-ratelimit-limit'], limitWindowSec);
  const remaining =
    ietf.remaining ?? number(headers['ratelimit-remaining']) ?? number(headers['x-ratelimit-remaining']);
  const resetSec = ietf.resetSec ?? number(headers['ratelimit-reset']);
  const resetMs =
    resetSec !== undefined ? Math.ceil(resetSec * 1000) : parseRateLimitReset(headers['x-ratelimit-reset'], now);
  const advert = dropUndefined({
    ratePerSec: ratePerSec !== undefined && Number.isFinite(ratePerSec) && ratePerSec > 0 ? ratePerSec : undefined,
    remaining: remaining !== undefined ? Math.floor(remaining) : undefined,
    resetMs,
  });
  return Object.keys(advert).length > 0 ? advert : undefined;
}
