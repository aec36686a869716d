// The rows of the state db as the rest of offersync sees them. The state never stores credentials,
// the API key, or anything that could rebuild them: only an HMAC of credentials.

export type StateKind = 'account' | 'item' | 'topup';

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
