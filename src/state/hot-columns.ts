// The columns the hot statements (sqlite-hot-statements.ts, postgres-hot-statements.ts) write and read.
import type { JournalTable, OffersTable } from './db-schema.ts';

/** A journal row as the store reads it, in this order. */
export const JOURNAL_COLUMNS = [
  'id',
  'run_id',
  'op',
  'kind',
  'keys',
  'state',
  'error',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof JournalTable)[];

/** Every column of an offers row but the seller, in this order (an upsert writes them all). */
export const OFFER_ROW_COLUMNS = [
  'kind',
  'external_id',
  'remote_id',
  'last_applied',
  'credentials_hmac',
  'image_hashes',
  'content_hash',
  'remote_status',
  'remote_updated_at',
  'managed',
  'source_file',
  'lossy_fields',
  'sold_count',
  'sold_count_at_send',
  'title',
  'login_fingerprint',
  'updated_at',
] as const satisfies readonly (keyof OffersTable)[];
