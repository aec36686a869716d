// The hot ops (hot-ops.ts) on better-sqlite3: statements prepared once, run in order in one BEGIN IMMEDIATE ...
// COMMIT per batch on the one connection, taken through the lock kysely's queries share (so never inside one of
// its transactions) and, when free, without a promise or kysely's connection set-up a batch.
import type BetterSqlite3 from 'better-sqlite3';
import type {
  HotFence,
  HotOp,
  HotStatements,
  JournalInsertOp,
  OfferEventsOp,
  OfferRow,
  OfferUpsertOp,
} from './hot-ops.ts';
import { OFFER_COLUMNS } from './rows.ts';
import type { ConnectionLock } from './connection-lock.ts';
import { JOURNAL_COLUMNS, OFFER_EVENT_COLUMNS, OFFER_ROW_COLUMNS } from './hot-columns.ts';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** Offer events a multi-row insert takes (13 parameters each, far below sqlite's 32,766). */
const EVENT_ROWS = 32;

export function sqliteHotStatements(raw: BetterSqlite3.Database, lock: ConnectionLock): HotStatements {
  const journalColumns = JOURNAL_COLUMNS.join(', ');
  const offerColumns = OFFER_COLUMNS.join(', ');
  const insertColumns = `seller, ${journalColumns.replace('id, ', '')}`;
  const journalValues = '?, ?, ?, ?, ?, ?, ?, ?, ?';

  // Each SQL text built once and prepared on first use (the tables exist only once migrated): a write builds no
  // string.
  const lazy = (text: string): (() => Statement) => {
    let s: Statement | undefined;
    return () => (s ??= raw.prepare<unknown[], unknown>(text));
  };
  // Only the id comes back, as the row id of the insert: the caller has every other column already, and sqlite's
  // RETURNING (a table of its own for the rows returned, and a row object each) is not paid per write.
  const insertPlain = lazy(`INSERT INTO journal (${insertColumns}) VALUES (${journalValues})`);
  // The lease a fenced insert needs, read once a batch: the batch holds sqlite's write lock (BEGIN IMMEDIATE), so no
  // other process changes the lease meanwhile and every insert of the batch would find the same row. Each insert
  // still compares the expiry with its own clock reading, as an EXISTS beside it would.
  const leaseExpiry = lazy('SELECT expires_at FROM seller_leases WHERE seller = ? AND holder = ? AND epoch = ?');
  const setState = lazy('UPDATE journal SET state = ?, updated_at = ? WHERE seller = ? AND id = ?');
  const setStateError = lazy('UPDATE journal SET state = ?, updated_at = ?, error = ? WHERE seller = ? AND id = ?');
  const getOffer = lazy(`SELECT ${offerColumns} FROM offers WHERE seller = ? AND kind = ? AND external_id = ?`);
  const eventRow = `(?${', ?'.repeat(OFFER_EVENT_COLUMNS.length)})`;
  const eventInsert = (rows: number) =>
    lazy(
      `INSERT INTO offer_events (seller, ${OFFER_EVENT_COLUMNS.join(', ')}) VALUES ` +
        Array.from({ length: rows }, () => eventRow).join(', '),
    );
  const insertEvent = eventInsert(1);
  // Many rows a statement: the AUTOINCREMENT counter and the call into sqlite are paid once for them.
  const insertEvents = eventInsert(EVENT_ROWS);
  // Which of up to EVENT_ROWS offers hold more than `kept` events, one statement for them all; then for each such
  // offer its oldest id kept, read through the index (seller, external_id, kind, id), and the older ones deleted.
  const overKept = new Map<number, Statement>();
  const overKeptOf = (offers: number): Statement => {
    let st = overKept.get(offers);
    if (!st) {
      st = raw.prepare<unknown[], unknown>(
        'SELECT external_id, kind FROM offer_events WHERE seller = ? AND (external_id, kind) IN (VALUES ' +
          `${Array.from({ length: offers }, () => '(?, ?)').join(', ')}) ` +
          'GROUP BY external_id, kind HAVING count(*) > ?',
      );
      overKept.set(offers, st);
    }
    return st;
  };
  const eventFloor = lazy(
    'SELECT id FROM offer_events WHERE seller = ? AND external_id = ? AND kind = ? ORDER BY id DESC LIMIT 1 OFFSET ?',
  );
  const pruneEvents = lazy('DELETE FROM offer_events WHERE seller = ? AND external_id = ? AND kind = ? AND id <= ?');
  const begin = lazy('BEGIN IMMEDIATE');
  const commit = lazy('COMMIT');
  const rollback = lazy('ROLLBACK');
  /** The upsert of each set of columns, by that set's columns joined. */
  const upserts = new Map<string, Statement>();
  // And by the array itself: the store passes the same array for the same set (rows.ts), so a write builds no key.
  const upsertsOfSet = [new WeakMap<readonly string[], Statement>(), new WeakMap<readonly string[], Statement>()];
  // `returning` false for offer-apply, which answers only whether it wrote: sqlite's RETURNING, which buffers its
  // rows in a table of their own, is not paid.
  const upsertOf = (columns: readonly string[], returning: boolean): Statement => {
    const bySet = upsertsOfSet[returning ? 1 : 0]!;
    const known = bySet.get(columns);
    if (known) return known;
    const key = `${returning ? 'r' : ''}:${columns.join(',')}`;
    let s = upserts.get(key);
    if (!s) {
      s = raw.prepare<unknown[], unknown>(
        `INSERT INTO offers (seller, ${OFFER_ROW_COLUMNS.join(', ')}) ` +
          `VALUES (?${', ?'.repeat(OFFER_ROW_COLUMNS.length)}) ` +
          `ON CONFLICT (seller, kind, external_id) DO UPDATE SET ` +
          `${columns.map((c) => `${c} = excluded.${c}`).join(', ')}${returning ? ` RETURNING ${offerColumns}` : ''}`,
      );
      upserts.set(key, s);
    }
    bySet.set(columns, s);
    return s;
  };

  const insertedId = (info: BetterSqlite3.RunResult): { id: number } | undefined =>
    info.changes === 0 ? undefined : { id: Number(info.lastInsertRowid) };
  // The fence of the batch running now and its lease's expiry (null: no such lease). A store asks with its one
  // fence object; another object is read afresh.
  let fence: HotFence | undefined;
  let expires: number | null = null;
  const fenceHolds = (seller: string, f: HotFence, now: number): boolean => {
    if (f !== fence) {
      const lease = leaseExpiry().get(seller, f.holder, f.epoch) as { expires_at: number } | undefined;
      fence = f;
      expires = lease ? lease.expires_at : null;
    }
    return expires !== null && expires > now;
  };
  const insertJournal = (seller: string, o: JournalInsertOp) => {
    if (o.fence && !fenceHolds(seller, o.fence, o.leaseNow)) return undefined;
    const r = o.row;
    return insertedId(
      insertPlain().run(seller, r.run_id, r.op, r.kind, r.keys, r.state, r.error, r.created_at, r.updated_at),
    );
  };
  const upsertValues = (seller: string, row: OfferUpsertOp['row']): unknown[] => {
    const values: unknown[] = [seller];
    for (const c of OFFER_ROW_COLUMNS) values.push(row[c]);
    return values;
  };
  const upsertOffer = (seller: string, { row, set }: Omit<OfferUpsertOp, 'op'>) =>
    upsertOf(set, true).get(upsertValues(seller, row));
  const recordEvents = (seller: string, { rows, kept }: OfferEventsOp): number => {
    const values: unknown[] = [];
    const touched = new Map<string, OfferEventsOp['rows'][number]>();
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      values.push(seller);
      for (const c of OFFER_EVENT_COLUMNS) values.push(r[c]);
      touched.set(`${r.kind}\u0000${r.external_id}`, r);
      const full = values.length === EVENT_ROWS * (OFFER_EVENT_COLUMNS.length + 1);
      if (full || i === rows.length - 1) {
        if (full) insertEvents().run(values);
        else
          for (let at = 0; at < values.length; at += OFFER_EVENT_COLUMNS.length + 1)
            insertEvent().run(values.slice(at, at + OFFER_EVENT_COLUMNS.length + 1));
        values.length = 0;
      }
    }
    const offers = [...touched.values()];
    for (let i = 0; i < offers.length; i += EVENT_ROWS) {
      const chunk = offers.slice(i, i + EVENT_ROWS);
      const keys: unknown[] = [seller];
      for (const r of chunk) keys.push(r.external_id, r.kind);
      keys.push(kept);
      for (const over of overKeptOf(chunk.length).all(keys) as { external_id: string; kind: string }[]) {
        const floor = eventFloor().get(seller, over.external_id, over.kind, kept) as { id: number } | undefined;
        if (floor) pruneEvents().run(seller, over.external_id, over.kind, floor.id);
      }
    }
    return rows.length;
  };
  const one = (seller: string, o: HotOp): unknown => {
    switch (o.op) {
      case 'journal-insert':
        return insertJournal(seller, o);
      case 'journal-set':
        return o.error === undefined
          ? setState().run(o.state, o.at, seller, o.id).changes
          : setStateError().run(o.state, o.at, o.error, seller, o.id).changes;
      case 'offer-get':
        return getOffer().get(seller, o.kind, o.externalId);
      case 'offer-upsert':
        return upsertOffer(seller, o);
      case 'offer-apply': {
        const settled = o.done ? setState().run('done', o.done.at, seller, o.done.id).changes : 0;
        const stored = getOffer().get(seller, o.kind, o.externalId) as OfferRow | undefined;
        const { row, set } = o.rowOf(stored);
        const written = upsertOf(set, false).run(upsertValues(seller, row)).changes > 0;
        return { written, settled };
      }
      case 'offer-events':
        return recordEvents(seller, o);
    }
  };
  const batch = (seller: string, ops: readonly HotOp[]): unknown[] => {
    try {
      // Reads alone need no transaction.
      if (ops.every((o) => o.op === 'offer-get')) return ops.map((o) => one(seller, o));
      begin().run();
      fence = undefined;
      try {
        const out = ops.map((o) => one(seller, o));
        commit().run();
        return out;
      } finally {
        if (raw.inTransaction) rollback().run();
      }
    } finally {
      lock.free();
    }
  };
  return {
    run: async (seller, ops) => {
      if (!lock.tryTake()) await lock.take();
      return batch(seller, ops);
    },
  };
}
