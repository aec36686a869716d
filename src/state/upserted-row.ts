// The offers row an upsert leaves, made from the row it was given and the one stored before it in the same
// transaction: what `RETURNING` would read back, without asking the database for it.
import type { Selectable } from 'kysely';
import type { OffersTable } from './db-schema.ts';
import type { OfferRow } from './hot-ops.ts';
import { OFFER_COLUMNS } from './rows.ts';

/** `stored` undefined: the row was inserted as given; else `set` took the given values, the rest kept theirs. */
export function upsertedRow(
  stored: OfferRow | undefined,
  row: Selectable<OffersTable>,
  set: readonly (keyof OffersTable)[],
): OfferRow {
  const out: Record<string, unknown> = {};
  for (const c of OFFER_COLUMNS) out[c] = stored === undefined || set.includes(c) ? row[c] : stored[c];
  return out;
}
