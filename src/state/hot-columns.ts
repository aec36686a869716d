// The columns the hot statements (sqlite-hot-statements.ts, postgres-hot-statements.ts) write and read.
import type { JournalTable, OfferEventsTable, OffersTable } from './db-schema.ts';
import { OFFER_COLUMNS } from './rows.ts';

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

/** Every column of an offers row but the seller (an upsert writes them all): those a listing reads, and the title. */
export const OFFER_ROW_COLUMNS = [...OFFER_COLUMNS, 'title'] as const satisfies readonly (keyof OffersTable)[];

/** An offer event row's columns but the id and the seller, in the order the hot statements bind them. */
export const OFFER_EVENT_COLUMNS = [
  'kind',
  'external_id',
  'run_id',
  'at',
  'event',
  'route',
  'changes',
  'quantity',
  'detail',
  'answer',
  'answer_status',
  'answer_message',
] as const satisfies readonly (keyof OfferEventsTable)[];
