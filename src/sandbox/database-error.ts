// A marketplace whose code passes values to its database unchecked (faults.errorInfoBodies): an update that
// writes what a strict database refuses (null into stock, text or an out-of-range number into an integer
// column, an array or object as a value) fails uncaught, and the answer is PDO's errorInfo, which names the
// table and the column.
import { HttpError } from './http-error.ts';
import type { OfferKind } from './sandbox-options.ts';

/** Integer columns of the offers tables, by request field. */
const INTEGER_COLUMNS = new Set([
  'price',
  'stock',
  'min_quantity',
  'offer_amount',
  'waiting_time_value',
  'current_lp',
  'flex_lp',
  'previous_lp',
  'level',
  'blue_essence',
  'game_points',
  'winrate_percent',
  'champion_count',
  'skin_count',
]);
/** Columns that hold JSON (or a list the code encodes) and so take an array or object. */
const JSON_COLUMNS = new Set([
  'parameters',
  'game_data',
  'credentials',
  'image_ids',
  'image_urls',
  'champions',
  'skins',
  'roles',
]);
const NOT_NULL_COLUMNS = new Set(['stock']);
const INT_MAX = 2_147_483_647;
const INT_MIN = -2_147_483_648;

export class DatabaseError extends HttpError {
  constructor(readonly errorInfo: readonly [string, number, string]) {
    super(500, 'Server Error');
  }

  /** What PDO's exception serialises to when the answer is JSON. */
  errorInfoBody(): { errorInfo: readonly [string, number, string] } {
    return { errorInfo: this.errorInfo };
  }
}

const column = (field: string): string => `\`shop\`.\`offers\`.\`${field}\``;

/** The error a strict database gives for this change, if any. Items and top-ups only hold flat values. */
export function databaseRejection(kind: OfferKind, change: Record<string, unknown>): DatabaseError | undefined {
  for (const [field, value] of Object.entries(change)) {
    if (value === undefined) continue;
    if (value === null) {
      if (NOT_NULL_COLUMNS.has(field)) return new DatabaseError(['23000', 1048, `Column '${field}' cannot be null`]);
      continue;
    }
    if (typeof value === 'object' && !(kind === 'accounts' && JSON_COLUMNS.has(field)))
      return new DatabaseError(['HY000', 1366, `Incorrect string value: 'Array' for column ${column(field)} at row 1`]);
    if (!INTEGER_COLUMNS.has(field)) continue;
    const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
    if (typeof value === 'boolean' || (typeof value === 'string' && value.trim() === '') || !Number.isFinite(n))
      return new DatabaseError([
        '22007',
        1366,
        `Incorrect integer value: '${String(value)}' for column ${column(field)} at row 1`,
      ]);
    if (n > INT_MAX || n < INT_MIN)
      return new DatabaseError(['22003', 1264, `Out of range value for column ${column(field)} at row 1`]);
  }
  return undefined;
}
