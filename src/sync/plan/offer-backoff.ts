// Per-offer backoff, as controller-runtime's per-item rate limiter (ItemExponentialFailureRateLimiter)
// beside the queue's global token bucket: an offer the marketplace refused with a final error is not sent again
// until its catalogue entry changes or its backoff elapses (exponential from `initialMs`, capped at `maxMs`);
// after `parkAfter` refusals it is parked until its entry changes. A success forgets it.
//
// Kept in the state db's meta as one small JSON map, read once per run: refused offers are few, and this
// needs nothing new from a state backend.
import type { AccountCredentials, OfferKind } from '../../catalogue/desired-offer.ts';
import { scrubSecrets } from '../../log/scrubber.ts';

export interface OfferBackoffOptions {
  /** The first wait after a refusal. */
  readonly initialMs: number;
  /** The longest wait. */
  readonly maxMs: number;
  /** Refusals of the same entry after which it is parked (not sent again until it changes). */
  readonly parkAfter: number;
}

export interface OfferBackoff {
  readonly kind: OfferKind;
  readonly externalId: string;
  /** The catalogue entry's hash when it was refused: a different hash is a new entry, sent at once. */
  readonly hash: string;
  /** Refusals of this entry in a row. */
  readonly refusals: number;
  readonly status: number | null;
  /** The marketplace's message, for status and the run summary. */
  readonly message: string;
  readonly lastRefusedAt: number;
  /** Epoch ms of the next attempt; null when parked. */
  readonly nextAttemptAt: number | null;
}

export type BackoffVerdict =
  | { readonly send: true }
  | { readonly send: false; readonly backoff: OfferBackoff; readonly parked: boolean };

const META_KEY = 'offers.backoff';

export const backoffKey = (kind: OfferKind, externalId: string): string => `${kind}:${externalId}`;

/** The wait after the nth refusal (1-based): initial * 2^(n-1), capped. */
export function backoffDelayMs(refusals: number, opts: OfferBackoffOptions): number {
  return Math.min(opts.maxMs, opts.initialMs * 2 ** Math.max(0, refusals - 1));
}

/** What a refusal makes of the offer's backoff: one more refusal of the same entry, or the first of a new one. */
export function afterRefusal(
  prev: OfferBackoff | undefined,
  refusal: {
    readonly kind: OfferKind;
    readonly externalId: string;
    readonly hash: string;
    readonly status: number | null;
    readonly message: string;
  },
  now: number,
  opts: OfferBackoffOptions,
): OfferBackoff {
  const refusals = prev && prev.hash === refusal.hash ? prev.refusals + 1 : 1;
  return {
    ...refusal,
    refusals,
    lastRefusedAt: now,
    nextAttemptAt: refusals >= opts.parkAfter ? null : now + backoffDelayMs(refusals, opts),
  };
}

/** Whether the entry with `hash` may be sent at `now`. */
export function backoffVerdict(rec: OfferBackoff | undefined, hash: string, now: number): BackoffVerdict {
  if (!rec || rec.hash !== hash) return { send: true };
  if (rec.nextAttemptAt === null) return { send: false, backoff: rec, parked: true };
  return now >= rec.nextAttemptAt ? { send: true } : { send: false, backoff: rec, parked: false };
}

/** Not about the offer: the key (401, 403), "not there" (404: the next run's list says gone), a timeout, the rate. */
const NOT_THE_OFFERS = new Set([401, 403, 404, 408, 429]);

/** A final refusal of this offer by the marketplace: a 4xx other than those above (not a 5xx or network error). */
export function isFinalRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && !NOT_THE_OFFERS.has(status);
}

/** What the backoffs need of a store; a test's table may answer synchronously. */
interface MetaStore {
  getMeta(key: string): Promise<string | undefined> | string | undefined;
  setMeta(key: string, value: string): Promise<void> | void;
}

function isBackoff(v: unknown): v is OfferBackoff {
  if (typeof v !== 'object' || v === null) return false;
  const b = v as Record<string, unknown>;
  return (
    typeof b.kind === 'string' &&
    typeof b.externalId === 'string' &&
    typeof b.hash === 'string' &&
    typeof b.refusals === 'number' &&
    typeof b.message === 'string' &&
    typeof b.lastRefusedAt === 'number' &&
    (b.nextAttemptAt === null || typeof b.nextAttemptAt === 'number') &&
    (b.status === null || typeof b.status === 'number')
  );
}

/** Every offer held back, by backoffKey. An unreadable value counts as none (every offer is sent again). */
export async function loadBackoffs(store: MetaStore): Promise<Map<string, OfferBackoff>> {
  const out = new Map<string, OfferBackoff>();
  let raw: unknown;
  try {
    raw = JSON.parse((await store.getMeta(META_KEY)) ?? '[]');
  } catch {
    return out;
  }
  if (Array.isArray(raw)) for (const b of raw) if (isBackoff(b)) out.set(backoffKey(b.kind, b.externalId), b);
  return out;
}

export async function saveBackoffs(store: MetaStore, backoffs: ReadonlyMap<string, OfferBackoff>): Promise<void> {
  await store.setMeta(META_KEY, JSON.stringify([...backoffs.values()]));
}

export const DEFAULT_OFFER_BACKOFF: OfferBackoffOptions = { initialMs: 60_000, maxMs: 6 * 3_600_000, parkAfter: 10 };

/** For the report and status: what the marketplace said, and when the entry goes again. */
export function describeBackoff(b: OfferBackoff): string {
  const said = `the marketplace refused it: ${b.message}`;
  const times = b.refusals === 1 ? 'once' : `${b.refusals} times`;
  const next =
    b.nextAttemptAt === null
      ? 'parked until its catalogue entry changes'
      : `not sent again before ${new Date(b.nextAttemptAt).toISOString()} unless its catalogue entry changes`;
  return `${said} (${times}); ${next}`;
}

interface DesiredEntry {
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly hash: string;
  /** An account's credentials, never kept in the message even if the marketplace quoted them. */
  readonly credentials?: AccountCredentials;
}

/** One run's view of the backoffs: read at start, changed by refusals and successes, saved at the end. */
export class OfferBackoffs {
  readonly #store: MetaStore;
  readonly #opts: OfferBackoffOptions;
  readonly #now: () => number;
  readonly #map: Map<string, OfferBackoff>;
  #dirty = false;

  /** The backoffs as the store holds them now. */
  static async load(store: MetaStore, opts: OfferBackoffOptions, now: () => number): Promise<OfferBackoffs> {
    return new OfferBackoffs(store, opts, now, await loadBackoffs(store));
  }

  constructor(store: MetaStore, opts: OfferBackoffOptions, now: () => number, loaded: Map<string, OfferBackoff>) {
    this.#store = store;
    this.#opts = opts;
    this.#now = now;
    this.#map = loaded;
  }

  all(): ReadonlyMap<string, OfferBackoff> {
    return this.#map;
  }

  /** A final refusal of this entry: noted, and what the report adds; '' for any other error. */
  refused(d: DesiredEntry, err: unknown): string {
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status !== 'number' || !isFinalRefusal(status)) return '';
    const key = backoffKey(d.kind, d.externalId);
    // The whole message: the request, the status and the marketplace's words.
    const message = scrubSecrets(err instanceof Error ? err.message : String(err), Object.values(d.credentials ?? {}));
    const next = afterRefusal(
      this.#map.get(key),
      { kind: d.kind, externalId: d.externalId, hash: d.hash, status, message },
      this.#now(),
      this.#opts,
    );
    this.#map.set(key, next);
    this.#dirty = true;
    return next.nextAttemptAt === null
      ? `; refused ${next.refusals} times: parked until its catalogue entry changes`
      : `; not sent again before ${new Date(next.nextAttemptAt).toISOString()} unless its catalogue entry changes`;
  }

  /** The marketplace took it: forgotten. */
  succeeded(kind: OfferKind, externalId: string): void {
    if (this.#map.delete(backoffKey(kind, externalId))) this.#dirty = true;
  }

  /** Writes the backoffs back when the run changed them. */
  async save(): Promise<void> {
    if (!this.#dirty) return;
    await saveBackoffs(this.#store, this.#map);
    this.#dirty = false;
  }
}
