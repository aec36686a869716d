// The hot ops (hot-ops.ts) on better-sqlite3: statements prepared once, run in order in one BEGIN IMMEDIATE ...
// COMMIT per batch on kysely's one connection (taken through kysely, so never inside one of its transactions).
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { HotOp, HotStatements, JournalInsertOp, OfferUpsertOp } from './hot-ops.ts';
import { OFFER_COLUMNS } from './rows.ts';
import type { Database } from './db-schema.ts';
import { JOURNAL_COLUMNS, OFFER_ROW_COLUMNS } from './hot-columns.ts';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

export function sqliteHotStatements(raw: BetterSqlite3.Database, db: Kysely<Database>): HotStatements {
  const cache = new Map<string, Statement>();
  const prepared = (text: string): Statement => {
    let s = cache.get(text);
    if (!s) {
      s = raw.prepare<unknown[], unknown>(text);
      cache.set(text, s);
    }
    return s;
  };
  const journalColumns = JOURNAL_COLUMNS.join(', ');
  const offerColumns = OFFER_COLUMNS.join(', ');
  const insertColumns = `seller, ${journalColumns.replace('id, ', '')}`;
  const journalValues = '?, ?, ?, ?, ?, ?, ?, ?, ?';

  const insertJournal = (seller: string, o: JournalInsertOp) => {
    const r = o.row;
    const values = [seller, r.run_id, r.op, r.kind, r.keys, r.state, r.error, r.created_at, r.updated_at];
    if (!o.fence)
      return prepared(
        `INSERT INTO journal (${insertColumns}) VALUES (${journalValues}) RETURNING ${journalColumns}`,
      ).get(...values);
    return prepared(
      `INSERT INTO journal (${insertColumns}) SELECT ${journalValues} WHERE EXISTS (SELECT 1 FROM seller_leases ` +
        `WHERE seller = ? AND holder = ? AND epoch = ? AND expires_at > ?) RETURNING ${journalColumns}`,
    ).get(...values, seller, o.fence.holder, o.fence.epoch, o.leaseNow);
  };
  const upsertOffer = (seller: string, o: OfferUpsertOp) => {
    const set = o.set.map((c) => `${c} = excluded.${c}`).join(', ');
    return prepared(
      `INSERT INTO offers (seller, ${OFFER_ROW_COLUMNS.join(', ')}) ` +
        `VALUES (?${', ?'.repeat(OFFER_ROW_COLUMNS.length)}) ` +
        `ON CONFLICT (seller, kind, external_id) DO UPDATE SET ${set} RETURNING ${offerColumns}`,
    ).get(seller, ...OFFER_ROW_COLUMNS.map((c) => o.row[c]));
  };
  const one = (seller: string, o: HotOp): unknown => {
    switch (o.op) {
      case 'journal-insert':
        return insertJournal(seller, o);
      case 'journal-set':
        return o.error === undefined
          ? prepared('UPDATE journal SET state = ?, updated_at = ? WHERE seller = ? AND id = ?').run(
              o.state,
              o.at,
              seller,
              o.id,
            ).changes
          : prepared('UPDATE journal SET state = ?, updated_at = ?, error = ? WHERE seller = ? AND id = ?').run(
              o.state,
              o.at,
              o.error,
              seller,
              o.id,
            ).changes;
      case 'offer-get':
        return prepared(`SELECT ${offerColumns} FROM offers WHERE seller = ? AND kind = ? AND external_id = ?`).get(
          seller,
          o.kind,
          o.externalId,
        );
      case 'offer-upsert':
        return upsertOffer(seller, o);
    }
  };
  return {
    run: (seller, ops) =>
      db.connection().execute(async () => {
        // Reads alone need no transaction.
        if (ops.every((o) => o.op === 'offer-get')) return ops.map((o) => one(seller, o));
        prepared('BEGIN IMMEDIATE').run();
        try {
          const out = ops.map((o) => one(seller, o));
          prepared('COMMIT').run();
          return out;
        } finally {
          if (raw.inTransaction) prepared('ROLLBACK').run();
        }
      }),
  };
}
