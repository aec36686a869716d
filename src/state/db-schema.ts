// The tables of the state db as kysely sees them, the same in SQLite and PostgreSQL: every row is keyed by
// seller first (one PostgreSQL database serves many sellers; a sqlite file holds one, under seller '').
// JSON columns are TEXT; booleans are INTEGER 0/1 (better-sqlite3 binds neither booleans nor objects); epoch
// milliseconds are BIGINT in PostgreSQL, read back as numbers. The DDL is in state-migrations.ts; the mapping
// to the records the rest of offersync uses is in rows.ts.
import type { Generated } from 'kysely';

export interface OffersTable {
  kind: string;
  external_id: string;
  remote_id: number | null;
  /** JSON object or NULL. */
  last_applied: string | null;
  credentials_hmac: string | null;
  /** JSON array of sha256 strings. */
  image_hashes: string;
  content_hash: string | null;
  remote_status: string | null;
  remote_updated_at: number | null;
  managed: number;
  source_file: string | null;
  /** JSON array of field names. */
  lossy_fields: string;
  sold_count: number | null;
  sold_count_at_send: number | null;
  /** Accounts: keyed HMAC of the normalised login, never the login. */
  login_fingerprint: string | null;
  /** The title (top-ups: offer_title) last sent or adopted, for searching; not read by a run. */
  title: string | null;
  updated_at: number;
}

export interface ImagesTable {
  sha256: string;
  remote_id: number;
  url: string | null;
  uploaded_at: number;
}

export interface RunsTable {
  id: string;
  command: string;
  started_at: number;
  ended_at: number | null;
  outcome: string | null;
  /** JSON object of counts. */
  counts: string;
}

export interface JournalTable {
  id: Generated<number>;
  run_id: string;
  op: string;
  kind: string;
  /** JSON array of keys. */
  keys: string;
  state: string;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface OfferEventsTable {
  id: Generated<number>;
  kind: string;
  external_id: string;
  run_id: string | null;
  at: number;
  event: string;
  route: string | null;
  /** JSON array of OfferEventChange. */
  changes: string;
  quantity: number | null;
  detail: string | null;
  answer: string | null;
  answer_status: number | null;
  answer_message: string | null;
}

export interface CapabilitiesTable {
  name: string;
  usable: number;
  detail: string | null;
  learnt_at: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface LeaseTable {
  holder: string;
  pid: number;
  hostname: string;
  /** Boot and pid namespace of the holder's process ('' where unknown): see WriterLease.scope. */
  scope: string;
  expires_at: number;
}

/** Whose row it is: a seller id in PostgreSQL, '' in a sqlite file. */
interface SellerColumn {
  seller: string;
}

export interface SellerLeasesTable extends LeaseTable, SellerColumn {
  /** Grows each time the lease changes hands: a write batch is fenced by the epoch it started under. */
  epoch: number;
}

/** Live daemon replicas (PostgreSQL), for the fair share of sellers. */
export interface ReplicasTable {
  holder: string;
  pid: number;
  hostname: string;
  started_at: number;
  expires_at: number;
}

/** Sellers added at run time, and those a config file's list brought in (PostgreSQL; see migrations.ts). */
export interface SellersTable {
  seller: string;
  /** Absolute path of the catalogue directory. */
  catalogue: string;
  /** Where the API key is: a file's absolute path, or an environment variable's name. Never the key. */
  api_key_file: string | null;
  api_key_env: string | null;
  /** JSON object of the seller's own configuration keys (SELLER_OVERRIDES). */
  overrides: string;
  /** 'config': copied from a config file's sellers: list; 'command': set by `offersync sellers`. */
  origin: string;
  added_at: number;
  updated_at: number;
  /** Set by `sellers remove`: the row stays so that a config file's list does not bring the seller back. */
  removed_at: number | null;
}

/** One sale per row: the sold.jsonl line whole, and what the queries select by. */
export interface SalesTable {
  id: Generated<number>;
  kind: string;
  external_id: string;
  /** Epoch ms offersync saw the sale. */
  seen_at: number;
  /** Names the sale whichever run told of it: a second line of the same sale is not kept. */
  sale_key: string | null;
  /** JSON: the line sold.jsonl would hold. */
  entry: string;
}

export interface Database {
  offers: OffersTable & SellerColumn;
  images: ImagesTable & SellerColumn;
  runs: RunsTable & SellerColumn;
  journal: JournalTable & SellerColumn;
  offer_events: OfferEventsTable & SellerColumn;
  capabilities: CapabilitiesTable & SellerColumn;
  seller_meta: MetaTable & SellerColumn;
  seller_leases: SellerLeasesTable;
  replicas: ReplicasTable;
  sellers: SellersTable;
  sales: SalesTable & SellerColumn;
}
