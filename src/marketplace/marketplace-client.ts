// What the rest of offersync needs from the marketplace. The undici implementation lives beside it
// (undici-marketplace-client.ts); tests and the executor depend only on this interface.

export const RESOURCE_KINDS = ['accounts', 'items', 'top-ups'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** An offer as the marketplace returned it, decoded tolerantly (docs/architecture.md, Decoding). */
export interface RemoteOffer {
  readonly id: number;
  readonly externalId: string;
  readonly status?: string;
  /** Epoch milliseconds. */
  readonly createdAt?: number;
  readonly updatedAt?: number;
  readonly soldAt?: number | null;
  /**
   * Items and top-ups: units sold so far (`sold_count`, an integer or a numeric string). Absent when the answer
   * does not carry it.
   */
  readonly soldCount?: number;
  /**
   * Every other field the server echoed, under its API name, decoded: integers as numbers (numeric strings
   * converted where the document says integer), timestamps as epoch ms, objects such as `game: {slug, name}`
   * reduced to their slug/name string. A field the response did not carry is absent (never undefined-as-changed).
   */
  readonly fields: Readonly<Record<string, unknown>>;
  /**
   * Accounts: the HMAC of the credentials the server returned, when it returns them and the client has a seal;
   * never the credentials themselves (they are dropped where they are decoded).
   */
  readonly credentialsHmac?: string;
  /**
   * Accounts: the fingerprint of the login the server returned (LoginFingerprint), when it returns credentials
   * and the client has the option; never the login itself.
   */
  readonly loginFingerprint?: string;
}

/** Turns an account's credentials into the HMAC the state keeps of them (src/state/credentials-key.ts). */
export type CredentialsSeal = (credentials: Readonly<Record<string, string>>) => string;

/** Turns an account's returned credentials into its login fingerprint (catalogue/account-fingerprint.ts). */
export type LoginFingerprint = (credentials: Readonly<Record<string, string>>) => string | undefined;

export interface RemoteImage {
  readonly id: number;
  readonly url?: string;
  readonly filename?: string;
  readonly mimeType?: string;
  readonly originalName?: string;
  readonly sizeBytes?: number;
  /** As sent; its unit is not documented. */
  readonly createdAt?: number;
}

/** Who an offer is. A numeric id, or the seller's external_id. */
export type Identifier = { readonly id: number } | { readonly externalId: string };

export interface ListOptions {
  /** e.g. "id" or "-updated_at". */
  readonly sort?: string;
  readonly perPage?: number;
  readonly signal?: AbortSignal;
}

/** One page of a list walk. */
export interface ListPage<T> {
  readonly items: readonly T[];
  readonly page: number;
  /** Whether the walk knows of more pages. */
  readonly hasMore: boolean;
  /** Elements of the page the decoder skipped (offers without an external_id, which offersync cannot manage). */
  readonly skipped?: number;
}

export interface BulkRemoveResult {
  readonly success: boolean;
  readonly processed?: number;
  readonly removed?: number;
  readonly notFound?: number;
}

export interface BulkUpdateResult {
  /** The raw decoded body: its shape is not documented. */
  readonly body: unknown;
  /** The counts the answer gave, where it gave them (`updated`, `removed`, `not_found`, `invalid` or `failed`). */
  readonly counts?: {
    readonly updated?: number;
    readonly removed?: number;
    readonly notFound?: number;
    readonly failed?: number;
  };
  /**
   * Each offer the answer names, in its order, by marketplace id and/or external_id: done or not, with the offer
   * as stored where the answer holds it. Absent when the answer itemises nothing.
   */
  readonly rows?: readonly BulkRow[];
  /** Per-offer outcomes, where the response gave them (keyed by external_id). */
  readonly outcomes?: ReadonlyMap<
    string,
    { readonly ok: boolean; readonly message?: string; readonly offer?: RemoteOffer }
  >;
}

/** One offer a bulk answer names. */
export interface BulkRow {
  readonly id?: number;
  readonly externalId?: string;
  readonly ok: boolean;
  readonly message?: string;
  /** The offer as the answer shows it after the call (the real server's updated[] rows). */
  readonly offer?: RemoteOffer;
}

export interface ImageUpload {
  readonly data: Uint8Array;
  readonly filename: string;
  readonly mimeType: string;
}

/** Per-call options; `priority` is handed to the request scheduler (higher runs first). */
export interface CallOptions {
  readonly priority?: number;
  readonly signal?: AbortSignal;
  /**
   * Sent as the Idempotency-Key header (IETF httpapi draft, as Stripe uses it) on a create: the same key
   * makes a retried create the same request, which a marketplace that honours it never carries out twice.
   */
  readonly idempotencyKey?: string;
}

export interface OfferResource {
  create(body: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<RemoteOffer>;
  get(identifier: Identifier, opts?: CallOptions): Promise<RemoteOffer>;
  update(identifier: Identifier, body: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<RemoteOffer>;
  /**
   * DELETE /{kind}/{identifier}: archives. Documented for accounts; for items and top-ups the document shows no
   * archive route, so the caller probes it (src/sync/plan/bulk-candidates.ts, ARCHIVE_ROUTES).
   */
  archive(identifier: Identifier, opts?: CallOptions): Promise<{ readonly archived: boolean }>;
  /** Pages in order; throws on a failed page (the caller marks its snapshot incomplete). */
  list(opts?: ListOptions): AsyncIterable<ListPage<RemoteOffer>>;
  /**
   * docs/architecture.md, Identity: GET by external_id only when it is not all digits and the answer really is that
   * offer; otherwise the list (filter where honoured, checked, else a paged scan). null only on a definite
   * "not there"; a 401, 5xx or timeout throws.
   */
  findByExternalId(externalId: string, opts?: CallOptions): Promise<RemoteOffer | null>;
  /**
   * POST /{kind}/{op} with `elements` under `key`. The document shows two bulk routes and says "not shown" for
   * the rest, so the route and its key are the caller's to probe and learn; the answer is read as a bulk-update's.
   */
  bulk(op: BulkOp, key: string, elements: readonly unknown[], opts?: CallOptions): Promise<BulkUpdateResult>;
}

/** The bulk routes a marketplace of this kind may serve under /{kind}/. */
export type BulkOp = 'bulk-update' | 'bulk-remove';

export interface AccountResource extends OfferResource {
  bulkRemove(
    req: { readonly externalIds?: readonly string[]; readonly ids?: readonly number[] },
    opts?: CallOptions,
  ): Promise<BulkRemoveResult>;
}

export interface TopUpResource extends OfferResource {
  bulkUpdate(offers: readonly Readonly<Record<string, unknown>>[], opts?: CallOptions): Promise<BulkUpdateResult>;
}

export interface ImageResource {
  upload(file: ImageUpload, opts?: CallOptions): Promise<RemoteImage>;
  list(opts?: CallOptions): Promise<readonly RemoteImage[]>;
  delete(id: number, opts?: CallOptions): Promise<{ readonly success: boolean; readonly deletedId?: number }>;
}

export interface MarketplaceClient {
  readonly accounts: AccountResource;
  readonly items: OfferResource;
  readonly topUps: TopUpResource;
  readonly images: ImageResource;
  close(): Promise<void>;
}

/**
 * Every HTTP request the client makes goes through this hook, so the request queue can rate-limit, retry
 * and prioritise without the client knowing it. `idempotent: false` marks a request whose blind retry
 * could duplicate something (offer creates): the scheduler must not retry it on an unknown outcome.
 */
export interface RequestMeta {
  readonly method: string;
  /** Path without query, identifiers as sent. */
  readonly path: string;
  readonly idempotent: boolean;
  readonly priority?: number;
}
export type RequestScheduler = <T>(meta: RequestMeta, send: () => Promise<T>) => Promise<T>;
