// The options of one sandbox, its switches and what it reports. Defaults are merged in one place
// (resolveOptions) and bad values are rejected at start, naming what was expected and received.

export const DISABLEABLE_ROUTES = [
  'accounts.update',
  'accounts.bulkRemove',
  'topUps.bulkUpdate',
  'items.bulkUpdate',
  'items.bulkRemove',
  'topUps.bulkRemove',
  'filterExternalId',
] as const;
export type DisableableRoute = (typeof DISABLEABLE_ROUTES)[number];

/**
 * How a limited sandbox tells clients its limit: `x-ratelimit` (X-RateLimit-Limit per second and
 * X-RateLimit-Remaining), `ietf` (RateLimit-Policy and RateLimit of the IETF httpapi draft) or `none`
 * (only Retry-After on a 429, as a marketplace that keeps its limit to itself).
 */
export const RATE_LIMIT_HEADERS = ['x-ratelimit', 'ietf', 'none'] as const;
export type RateLimitHeaders = (typeof RATE_LIMIT_HEADERS)[number];

/** A token bucket per API key. */
export interface BucketRateLimit {
  readonly ratePerSec: number;
  readonly burst: number;
  /** Default 'x-ratelimit'. */
  readonly headers?: RateLimitHeaders;
}

/** Fixed windows aligned to the wall clock (every `seconds` since the epoch), counted per client address. */
export interface RateWindow {
  /** Requests an address may send in one window; the next one is refused and the address banned. */
  readonly requests: number;
  readonly seconds: number;
  /** How long a banned address gets 429 for everything (not extended by what it sends meanwhile). */
  readonly banSeconds: number;
}

/**
 * The site's own limiter in front of the API, as the marketplace's real server has it: per client ADDRESS
 * (every key behind it shares the window), 429 with Retry-After = banSeconds and no limit headers, the body
 * `{"sendToast":{...},"blocked":true}` when Accept has JSON and not HTML, else an HTML page.
 */
export interface WindowRateLimit {
  readonly window: RateWindow;
  /** Only 'none': this limiter tells nothing of itself. */
  readonly headers?: 'none';
  /**
   * An empty User-Agent always gets 429; one naming an HTTP library (curl/, node-fetch, axios/, ...) gets
   * LIBRARY_USER_AGENT_REQUESTS per window. Default false.
   */
  readonly userAgentRules?: boolean;
}

export type RateLimit = BucketRateLimit | WindowRateLimit;

export interface SandboxFaults {
  /** 0..1: answer 500/502/503 before doing anything. */
  errorRate?: number;
  /** 0..1: do the write, then answer 502 or destroy the socket (outcome unknown to the client). */
  lostResponseRate?: number;
  /** 0..1: destroy the socket without an answer, before doing anything. */
  dropRate?: number;
  /** Added to every API response. */
  latencyMs?: number;
  /**
   * Disabled routes answer 404 (405 for accounts.update); 'filterExternalId' makes lists ignore filter[external_id].
   */
  disabled?: readonly DisableableRoute[];
  /** Deterministic fault choice. */
  seed?: number;
  /**
   * Account creates and updates that carry credentials are refused 422 with a message quoting them (as JSON with
   * non-ASCII as \uXXXX, and the login URL-encoded in the field errors), as a careless server does.
   */
  echoCredentials?: boolean;
  /**
   * An update (PATCH, bulk-update) writing a value a strict database refuses (null into stock, text or an
   * out-of-range number into an integer, an array as a value) answers 500 `{"errorInfo": [...]}` naming the
   * table and column when Accept has application/json (else an empty 200), as an uncaught PDO error does.
   */
  errorInfoBodies?: boolean;
}

export interface SandboxRepresentation {
  /** Single objects (get/create/update) wrapped as {data: {...}}; default bare. */
  wrapSingle?: boolean;
  /** created_at/updated_at/sold_at as epoch seconds; default ISO 8601 with microseconds and 'Z'. */
  epochTimestamps?: boolean;
  /** id, price, stock, counts etc. as numeric strings. */
  integersAsStrings?: boolean;
  /** Creates answered 201 instead of 200. */
  createStatus201?: boolean;
  /** {identifier} routes only numeric ids; an external_id in a path is 404. */
  numericIdPathsOnly?: boolean;
  /** Item/top-up `game` echoed as {slug, name}. */
  gameAsObject?: boolean;
  /** Item and top-up bulk-update and bulk-remove answer counts only, without per-offer results. */
  bulkCountsOnly?: boolean;
  /** GET /{kind}/{identifier} with an identifier that is not all digits answers an HTML page (200). */
  externalIdPathHtml?: boolean;
  /**
   * Creates honour an Idempotency-Key header (IETF httpapi draft, as Stripe): a repeat with the same key and
   * body gets the first answer again without a second offer; the same key with another body is a 422.
   */
  idempotencyKeys?: boolean;
  /** A sale of units (sell) raises sold_count only, leaving stock as it was, as a marketplace that keeps them apart. */
  saleKeepsStock?: boolean;
  /**
   * DELETE /items/{identifier} and /top-ups/{identifier} served, archiving as account DELETE does (the document
   * shows neither: default false, 405 as for any method a path does not serve).
   */
  deleteArchives?: boolean;
  /**
   * With deleteArchives: the offer is removed, gone from the lists and GET (404), its external_id free again,
   * instead of listed as archived. The document says nothing of what such a DELETE leaves.
   */
  deleteRemoves?: boolean;
  /**
   * Item and top-up updates (PATCH and bulk-update) refuse status archived 422 "The selected status is
   * invalid.", as a marketplace whose only archive route is DELETE.
   */
  statusArchivedRefused?: boolean;
  /**
   * Top-ups as the marketplace's real server names them: echoed as `title`, `amount` (a JSON float when it has a
   * fraction, 1000 for 1000.00), `unit` and `image_url`, without `active`, `game_name` defaulting to the slug in
   * title case. Create and PATCH take both the document's names and these. The top-up bulk-update reads its array
   * under `topups` or `top_ups` (at most 100; bulk.updateKey then names the items' key only), and of each element
   * only price, stock, region, platform,
   * service_label, instructions, title, amount and status: any other key is ignored, with a 200.
   */
  realTopUpNames?: boolean;
  /**
   * Accounts answered as the real marketplace answers them: `game` as {slug, name}, the ranks inside `parameters`
   * (rank_id, division_id, division, rank_label, lp, flex_*, previous_*), `credentials` and `image_urls` (the
   * gallery's urls, served by GET) returned; never `image_ids`, the flat rank fields or `platform_account_id`.
   */
  realAccounts?: boolean;
  /** No unique key on accounts' external_id: a second create with the same external_id is accepted (201). */
  accountsDuplicateExternalId?: boolean;
  /**
   * Seconds by which an updated_at written by an update (never by a create) reads earlier than the truth
   * (negative: later), as a database whose zone differs from the application's. Default 0.
   */
  updatedAtLagSec?: number;
  /** Accounts are created with updated_at null (sorted last under -updated_at) until first updated. */
  accountsNullUpdatedAt?: boolean;
  /**
   * PATCH /items/{identifier} takes `game` beside the document's five fields, and item bulk-update ignores it,
   * as the real server does. Default false: the document's five only, any other key refused 422.
   */
  itemUpdateTakesGame?: boolean;
}

/** The account switches of the real marketplace on, for a preset of every real-server switch. */
export const REAL_SERVER_SWITCHES_ACCOUNTS = {
  representation: { realAccounts: true, accountsDuplicateExternalId: true },
} as const satisfies Partial<SandboxOptions>;

/**
 * The bulk routes as a marketplace of this kind may serve them. The document shows account bulk-remove and
 * top-up bulk-update {offers} only.
 */
export interface SandboxBulk {
  /** POST /items/bulk-update, /items/bulk-remove and /top-ups/bulk-remove served; default false (404). */
  undocumented?: boolean;
  /**
   * The key every bulk-update reads its array from; a body without it is refused 422 "The {key} array is
   * required." (the only place the key is named). Default 'offers', the document's.
   */
  updateKey?: string;
  /** Most elements one bulk-update or item/top-up bulk-remove takes; more is refused 422 naming it. */
  limit?: number;
  /**
   * Every failEvery-th element of an item or top-up bulk call (the n-th, 2n-th, ...) is not carried out, as a
   * marketplace that drops some under load: itemised as status failed with a message to retry it, and left out
   * of the counts (updated, removed). Default: none.
   */
  failEvery?: number;
  /**
   * Item and top-up bulk-update (and bulk-remove, for the external ids its body names) find each element by its
   * `external_id` first, then by `id`; an all-digit external_id is looked up as the internal id, as the real
   * server's is_numeric does. Default false: an element with an id is found by its id.
   */
  resolveExternalIdFirst?: boolean;
  /**
   * Bulk answers in the real server's shape: bulk-update `{message, data: {updated_count, not_found_count,
   * updated[], not_found[]}}`, updated[] the rows as stored after the update; bulk-remove `{message, data:
   * {archived_count, not_found_count, archived[], not_found: {external_ids[], ids[]}}}` (accounts add
   * already_sold_count and already_sold[]). Default false: the sandbox's own per-element results.
   */
  realAnswers?: boolean;
}

export interface SandboxOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0 = a free port. */
  port?: number;
  /** Default ['sandbox-key']. */
  apiKeys?: readonly string[];
  /** Token bucket per key, or the real site's fixed window per address (WindowRateLimit); default null (none). */
  rateLimit?: RateLimit | null;
  faults?: SandboxFaults;
  representation?: SandboxRepresentation;
  bulk?: SandboxBulk;
  /** Default: memory only. JSON file, loaded at start, written after every mutation. */
  persistFile?: string;
  /**
   * Each API key is a seller account of its own, as on a real marketplace: its own offers and images.
   * Default false: every key sees one shared set. Memory only (not with persistFile).
   */
  sellerPerKey?: boolean;
  /** Default 1 MiB; a larger JSON body is answered 413. */
  maxJsonBytes?: number;
  /** Default 8 MiB; a larger upload is answered 413. */
  maxUploadBytes?: number;
  /** Default 15. */
  defaultPerPage?: number;
  /** Default 100; larger per_page values are clamped. */
  maxPerPage?: number;
}

export interface SandboxCounters {
  total: number;
  writes: number;
  rateLimited: number;
  /** "POST /api/v1/accounts" -> { "200": 3, "429": 1 }; a dropped or lost connection counts as "dropped" / "lost". */
  byRoute: Record<string, Record<string, number>>;
}

export type OfferKind = 'accounts' | 'items' | 'top-ups';

export interface SandboxDump {
  accounts: Record<string, unknown>[];
  items: Record<string, unknown>[];
  topUps: Record<string, unknown>[];
  images: Record<string, unknown>[];
}

export interface RunningSandbox {
  /** base_url, e.g. "http://127.0.0.1:43125" (the client appends /api/v1/...). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
  /** Empty store, zero counters, faults, representation and rate limit back to the start options. */
  reset(): void;
  counters(): SandboxCounters;
  resetCounters(): void;
  /** Replaces the faults (and restarts the fault sequence from the seed). */
  setFaults(f: SandboxFaults): void;
  setRepresentation(r: SandboxRepresentation): void;
  /** Replaces the bulk switches. */
  setBulk(b: SandboxBulk): void;
  setRateLimit(r: RateLimit | null): void;
  /** As the marketplace would (a sale, a refund): sold sets sold_at. Throws when the offer is unknown. */
  setStatus(kind: OfferKind, identifier: string | number, status: string): void;
  /**
   * As a buyer would: sells `quantity` units of an item or top-up. Raises its sold_count, and lowers its stock
   * unless `keepStock` (default: representation.saleKeepsStock). Throws when the offer is unknown, not listed,
   * or holds fewer units. Returns the offer's sold_count and stock after the sale.
   */
  sell(
    kind: OfferKind,
    identifier: string | number,
    quantity: number,
    keepStock?: boolean,
  ): { soldCount: number; stock: number | null };
  /** Stored records incl. archived, in id order; accounts include their credentials. */
  dump(): SandboxDump;
}

export interface ResolvedOptions {
  readonly host: string;
  readonly port: number;
  readonly apiKeys: readonly string[];
  readonly rateLimit: RateLimit | null;
  readonly faults: SandboxFaults;
  readonly representation: SandboxRepresentation;
  readonly bulk: SandboxBulk;
  readonly persistFile: string | undefined;
  readonly sellerPerKey: boolean;
  readonly maxJsonBytes: number;
  readonly maxUploadBytes: number;
  readonly defaultPerPage: number;
  readonly maxPerPage: number;
}

function fail(name: string, expected: string, got: unknown): never {
  throw new TypeError(`sandbox option ${name}: expected ${expected}, got ${JSON.stringify(got)}`);
}

function positiveInt(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v < 1) fail(name, 'a positive integer', v);
  return v;
}

export function checkRateLimit(r: RateLimit | null | undefined): RateLimit | null {
  if (r === null || r === undefined) return null;
  if (typeof r === 'object' && 'window' in r) return checkWindowRateLimit(r);
  if (typeof r !== 'object' || !(r.ratePerSec > 0) || !Number.isFinite(r.ratePerSec))
    fail('rateLimit.ratePerSec', 'a number > 0', r?.ratePerSec);
  if (!Number.isInteger(r.burst) || r.burst < 1) fail('rateLimit.burst', 'an integer >= 1', r.burst);
  if (r.headers !== undefined && !RATE_LIMIT_HEADERS.includes(r.headers))
    fail('rateLimit.headers', `one of ${RATE_LIMIT_HEADERS.join(', ')}`, r.headers);
  return { ratePerSec: r.ratePerSec, burst: r.burst, headers: r.headers ?? 'x-ratelimit' };
}

function checkWindowRateLimit(r: WindowRateLimit): WindowRateLimit {
  const w = r.window;
  if (typeof w !== 'object' || w === null) fail('rateLimit.window', '{requests, seconds, banSeconds}', w);
  if (!Number.isInteger(w.requests) || w.requests < 1) fail('rateLimit.window.requests', 'an integer >= 1', w.requests);
  for (const k of ['seconds', 'banSeconds'] as const)
    if (typeof w[k] !== 'number' || !Number.isFinite(w[k]) || !(w[k] > 0))
      fail(`rateLimit.window.${k}`, 'a number > 0', w[k]);
  if (r.headers !== undefined && r.headers !== 'none') fail('rateLimit.headers', "'none' with a window", r.headers);
  if (r.userAgentRules !== undefined && typeof r.userAgentRules !== 'boolean')
    fail('rateLimit.userAgentRules', 'a boolean', r.userAgentRules);
  return {
    window: { requests: w.requests, seconds: w.seconds, banSeconds: w.banSeconds },
    headers: 'none',
    userAgentRules: r.userAgentRules === true,
  };
}

/**
 * The marketplace's real limiter (a fixed window per address, a ban, no headers), for the real-server preset:
 * 300 requests per fixed 60 s window per address, a 300 s ban, no headers, the User-Agent rules on.
 */
export const REAL_SERVER_SWITCHES_LIMITER: Pick<SandboxOptions, 'rateLimit'> = Object.freeze({
  rateLimit: Object.freeze({
    window: Object.freeze({ requests: 300, seconds: 60, banSeconds: 300 }),
    headers: 'none',
    userAgentRules: true,
  }),
});

export function checkFaults(f: SandboxFaults | undefined): SandboxFaults {
  const out: SandboxFaults = { ...(f ?? {}) };
  for (const k of ['errorRate', 'lostResponseRate', 'dropRate'] as const) {
    const v = out[k];
    if (v !== undefined && (typeof v !== 'number' || !(v >= 0 && v <= 1))) fail(`faults.${k}`, 'a number in 0..1', v);
  }
  if (out.latencyMs !== undefined && (typeof out.latencyMs !== 'number' || !(out.latencyMs >= 0)))
    fail('faults.latencyMs', 'a number >= 0', out.latencyMs);
  if (out.seed !== undefined && (typeof out.seed !== 'number' || !Number.isFinite(out.seed)))
    fail('faults.seed', 'a finite number', out.seed);
  if (out.echoCredentials !== undefined && typeof out.echoCredentials !== 'boolean')
    fail('faults.echoCredentials', 'a boolean', out.echoCredentials);
  if (out.errorInfoBodies !== undefined && typeof out.errorInfoBodies !== 'boolean')
    fail('faults.errorInfoBodies', 'a boolean', out.errorInfoBodies);
  if (out.disabled !== undefined) {
    if (!Array.isArray(out.disabled))
      fail('faults.disabled', `an array of ${DISABLEABLE_ROUTES.join(', ')}`, out.disabled);
    for (const d of out.disabled)
      if (!DISABLEABLE_ROUTES.includes(d)) fail('faults.disabled', `one of ${DISABLEABLE_ROUTES.join(', ')}`, d);
  }
  return out;
}

export function checkRepresentation(r: SandboxRepresentation | undefined): SandboxRepresentation {
  const out: SandboxRepresentation = { ...(r ?? {}) };
  for (const [k, v] of Object.entries(out)) {
    if (k === 'updatedAtLagSec') {
      if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v)))
        fail('representation.updatedAtLagSec', 'a finite number of seconds', v);
    } else if (v !== undefined && typeof v !== 'boolean') fail(`representation.${k}`, 'a boolean', v);
  }
  return out;
}

export function checkBulk(b: SandboxBulk | undefined): SandboxBulk {
  const out: SandboxBulk = { ...(b ?? {}) };
  if (out.undocumented !== undefined && typeof out.undocumented !== 'boolean')
    fail('bulk.undocumented', 'a boolean', out.undocumented);
  if (out.updateKey !== undefined && (typeof out.updateKey !== 'string' || !/^[a-z_]+$/.test(out.updateKey)))
    fail('bulk.updateKey', 'a key of lowercase letters and _', out.updateKey);
  if (out.limit !== undefined) positiveInt('bulk.limit', out.limit, 1);
  if (out.failEvery !== undefined) positiveInt('bulk.failEvery', out.failEvery, 1);
  for (const k of ['resolveExternalIdFirst', 'realAnswers'] as const)
    if (out[k] !== undefined && typeof out[k] !== 'boolean') fail(`bulk.${k}`, 'a boolean', out[k]);
  return out;
}

export function resolveOptions(o: SandboxOptions = {}): ResolvedOptions {
  const apiKeys = o.apiKeys ?? ['sandbox-key'];
  if (
    !Array.isArray(apiKeys) ||
    apiKeys.length === 0 ||
    apiKeys.some((k) => typeof k !== 'string' || k.trim() === '' || /\s/.test(k))
  ) {
    fail('apiKeys', 'a non-empty array of non-empty keys without spaces', apiKeys);
  }
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail('port', 'an integer 0..65535', port);
  const defaultPerPage = positiveInt('defaultPerPage', o.defaultPerPage, 15);
  const maxPerPage = positiveInt('maxPerPage', o.maxPerPage, 100);
  if (defaultPerPage > maxPerPage) fail('defaultPerPage', `at most maxPerPage (${maxPerPage})`, defaultPerPage);
  if (o.sellerPerKey && o.persistFile) fail('sellerPerKey', 'no persistFile beside it (memory only)', o.persistFile);
  return {
    host: o.host ?? '127.0.0.1',
    port,
    apiKeys: [...apiKeys],
    rateLimit: checkRateLimit(o.rateLimit),
    faults: checkFaults(o.faults),
    representation: checkRepresentation(o.representation),
    bulk: checkBulk(o.bulk),
    persistFile: o.persistFile,
    sellerPerKey: o.sellerPerKey === true,
    maxJsonBytes: positiveInt('maxJsonBytes', o.maxJsonBytes, 1024 * 1024),
    maxUploadBytes: positiveInt('maxUploadBytes', o.maxUploadBytes, 8 * 1024 * 1024),
    defaultPerPage,
    maxPerPage,
  };
}
