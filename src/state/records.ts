// The rows of the state db as the rest of offersync sees them. The state never stores credentials,
// the API key, or anything that could rebuild them: only an HMAC of credentials.

export const STATE_KINDS = ['account', 'item', 'topup'] as const;
export type StateKind = (typeof STATE_KINDS)[number];

/** What offersync remembers of one offer it has seen or sent. Keyed by (kind, externalId). */
export interface OfferRecord {
  readonly kind: StateKind;
  readonly externalId: string;
  readonly remoteId: number | null;
  /** The canonical fields offersync last sent successfully (API names; never credentials). null: never sent. */
  readonly lastApplied: Readonly<Record<string, unknown>> | null;
  readonly credentialsHmac: string | null;
  /** sha256 of each gallery image last sent with this offer, in order. */
  readonly imageHashes: readonly string[];
  readonly contentHash: string | null;
  readonly remoteStatus: string | null;
  /** Epoch ms of the remote updated_at last seen. */
  readonly remoteUpdatedAt: number | null;
  /** True when offersync created or adopted it: only managed offers are ever archived. */
  readonly managed: boolean;
  /** Catalogue-relative file the offer last came from; used to quarantine offers of a file that fails to parse. */
  readonly sourceFile: string | null;
  /** Fields the server stores differently from what was sent (docs/architecture.md, Three-way diff). */
  readonly lossyFields: readonly string[];
  /** Items and top-ups: the marketplace's count of units sold, as last seen (a rise is a sale). null: never seen. */
  readonly soldCount?: number | null;
  /** Its count of units sold when offersync last sent (or agreed on) the stock: sales since explain a lower stock. */
  readonly soldCountAtSend?: number | null;
  /**
   * Accounts: keyed HMAC of the normalised login (catalogue/account-fingerprint.ts), never the login: which
   * physical account the offer sells. null: not known (an item, or an offer sent before it was kept).
   */
  readonly loginFingerprint?: string | null;
  /** Epoch ms. */
  readonly updatedAt: number;
}

export interface ImageRecord {
  readonly sha256: string;
  readonly remoteId: number;
  readonly url: string | null;
  readonly uploadedAt: number;
}

export const JOURNAL_STATES = ['pending', 'sent', 'done', 'failed'] as const;
export type JournalState = (typeof JOURNAL_STATES)[number];

export const JOURNAL_OPS = ['create', 'update', 'archive', 'bulk-remove', 'bulk-update', 'upload', 'recreate'] as const;
export type JournalOp = (typeof JOURNAL_OPS)[number];

/** One write, recorded before its request goes out (docs/architecture.md, Journal). */
export interface JournalEntry {
  readonly id: number;
  readonly runId: string;
  readonly op: JournalOp;
  readonly kind: StateKind | 'image';
  /** external_id, or the sha256 for an upload; several for a bulk op. */
  readonly keys: readonly string[];
  readonly state: JournalState;
  readonly error: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface CapabilityRecord {
  /** e.g. "PATCH /accounts/{id}", "POST /top-ups/bulk-update {offers}". */
  readonly name: string;
  readonly usable: boolean;
  readonly detail: string | null;
  readonly learntAt: number;
}

export interface RunRecord {
  readonly id: string;
  readonly command: string;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly outcome: 'running' | 'converged' | 'partial' | 'failed' | 'aborted' | 'stopped' | null;
  /** Counts per kind and action, as the run summary shows them. */
  readonly counts: Readonly<Record<string, number>>;
}

/** Who asks for the writer lease. */
export interface LeaseClaim {
  /** A random instance id, new for every process: in containers every process is pid 1 and hosts change. */
  readonly holder: string;
  /** For people reading who holds it, and for the same-scope liveness check. */
  readonly pid: number;
  readonly hostname: string;
  /**
   * The boot and pid namespace the pid belongs to ('' where unknown). Only a holder in our own scope can be
   * proven dead by its pid; every other holder is waited for until its lease expires.
   */
  readonly scope: string;
}

/** The writer lease as stored. */
export interface WriterLease extends LeaseClaim {
  /** Epoch ms by the store's clock. */
  readonly expiresAt: number;
}

/**
 * What happened to an offer, as `offersync history` tells it:
 * - created, updated, archived: a write offersync sent (its answer says whether the marketplace took it);
 * - adopted: found on the marketplace under its external_id and taken under management, nothing sent;
 * - sold: the marketplace sold it (an account whole, or units of an item or top-up);
 * - marked: the marketplace marks it refunded or processing (offersync leaves it alone meanwhile);
 * - edited-on-website: a field the marketplace shows differs from what offersync last sent (drift);
 * - gone: no longer on the marketplace (deleted or archived by hand): forgotten.
 */
export const OFFER_EVENT_TYPES = [
  'created',
  'updated',
  'archived',
  'adopted',
  'sold',
  'marked',
  'edited-on-website',
  'gone',
] as const;
export type OfferEventType = (typeof OFFER_EVENT_TYPES)[number];

/**
 * One field an event changed. A secret (account credentials) has neither `from` nor `to`: it is shown as
 * "(changed)", and its values are never stored.
 */
export interface OfferEventChange {
  readonly field: string;
  readonly from?: unknown;
  readonly to?: unknown;
  /** For an update: changed in the catalogue, patched back after an edit on the website, or never sent before. */
  readonly why?: 'changed' | 'drift' | 'unsent';
}

/** The marketplace's answer to a write: taken, refused (with its status code), or not known (no answer). */
export interface MarketplaceAnswer {
  readonly outcome: 'ok' | 'refused' | 'unknown';
  readonly status: number | null;
  /** The marketplace's error message (secrets scrubbed), or offersync's note of what it did not hear. */
  readonly message: string | null;
}

/** An event as recorded: the store adds its id. */
export interface OfferEventInput {
  readonly kind: StateKind;
  readonly externalId: string;
  /** The run that saw it; null outside a run. */
  readonly runId: string | null;
  /** Epoch ms. */
  readonly at: number;
  readonly type: OfferEventType;
  /** The request offersync sent, e.g. "PATCH /api/v1/items/:id"; null for what it only saw. */
  readonly route: string | null;
  readonly changes: readonly OfferEventChange[];
  /** Units sold (sold events of items and top-ups). */
  readonly quantity: number | null;
  /** offersync's reason or note: "removed from the catalogue", "the marketplace marks it sold". */
  readonly detail: string | null;
  /** The marketplace's answer to the write; null for what offersync only saw. */
  readonly answer: MarketplaceAnswer | null;
}

export interface OfferEvent extends OfferEventInput {
  /** Grows with every event: the order events happened in. */
  readonly id: number;
}

/** An offer the status page's search found. */
export interface OfferSearchHit {
  readonly kind: StateKind;
  readonly externalId: string;
  readonly title: string | null;
  readonly remoteId: number | null;
  readonly remoteStatus: string | null;
}

/** A sale as the state db keeps it: its sold.jsonl line whole, and when offersync saw it. */
export interface SaleRecord {
  readonly kind: string;
  readonly externalId: string;
  /** Epoch ms. */
  readonly seenAt: number;
  /** Names the sale whichever run told of it: a sale already kept under it is not kept again. */
  readonly key: string | null;
  /** The line sold.jsonl would hold, as an object. */
  readonly entry: Readonly<Record<string, unknown>>;
}
