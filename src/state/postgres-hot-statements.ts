// The hot ops (hot-ops.ts) on PostgreSQL: a batch in one transaction on one pooled connection, each run of ops of
// one kind as one statement over arrays (unnest), prepared once per connection: a handful of round trips and no
// query built, however many writes the batch holds.
import type pg from 'pg';
import type {
  HotOp,
  HotStatements,
  JournalInsertOp,
  JournalSetOp,
  OfferApplied,
  OfferApplyOp,
  OfferEventsOp,
  OfferGetOp,
  OfferUpsertOp,
  OfferRow,
} from './hot-ops.ts';
import { JOURNAL_COLUMNS, OFFER_EVENT_COLUMNS, OFFER_ROW_COLUMNS } from './hot-columns.ts';
import { OFFER_COLUMNS } from './rows.ts';
import type { OffersTable } from './db-schema.ts';

/** The SQL array type of each offers column, for unnest. */
const OFFER_TYPES: Readonly<Record<(typeof OFFER_ROW_COLUMNS)[number], string>> = {
  kind: 'text',
  external_id: 'text',
  remote_id: 'bigint',
  last_applied: 'text',
  credentials_hmac: 'text',
  image_hashes: 'text',
  content_hash: 'text',
  remote_status: 'text',
  remote_updated_at: 'bigint',
  managed: 'smallint',
  source_file: 'text',
  lossy_fields: 'text',
  sold_count: 'bigint',
  sold_count_at_send: 'bigint',
  title: 'text',
  login_fingerprint: 'text',
  updated_at: 'bigint',
};

/** The SQL array type of each offer_events column, for unnest. */
const EVENT_TYPES: Readonly<Record<(typeof OFFER_EVENT_COLUMNS)[number], string>> = {
  kind: 'text',
  external_id: 'text',
  run_id: 'text',
  at: 'bigint',
  event: 'text',
  route: 'text',
  changes: 'text',
  quantity: 'bigint',
  detail: 'text',
  answer: 'text',
  answer_status: 'integer',
  answer_message: 'text',
};

const EVENT_INSERT =
  `INSERT INTO offer_events (seller, ${OFFER_EVENT_COLUMNS.join(', ')}) ` +
  `SELECT $1, ${OFFER_EVENT_COLUMNS.map((c) => `e.${c}`).join(', ')} FROM unnest(` +
  `${OFFER_EVENT_COLUMNS.map((c, i) => `$${i + 2}::${EVENT_TYPES[c]}[]`).join(', ')}) ` +
  `WITH ORDINALITY AS e(${OFFER_EVENT_COLUMNS.join(', ')}, n) ORDER BY e.n`;

// The offers just written to, each but its newest $4 events: each offer's oldest kept id read through the index
// (seller, external_id, kind, id), a plan that stays one index probe per offer however many are named.
const EVENT_PRUNE =
  'WITH f AS (SELECT k.external_id, k.kind, (SELECT e.id FROM offer_events e WHERE e.seller = $1 AND ' +
  'e.external_id = k.external_id AND e.kind = k.kind ORDER BY e.id DESC OFFSET $4 LIMIT 1) AS floor ' +
  'FROM unnest($2::text[], $3::text[]) AS k(external_id, kind)) ' +
  'DELETE FROM offer_events o USING f WHERE f.floor IS NOT NULL AND o.seller = $1 AND ' +
  'o.external_id = f.external_id AND o.kind = f.kind AND o.id <= f.floor';

const JOURNAL_RETURNING = JOURNAL_COLUMNS.join(', ');
const OFFER_SELECT = OFFER_COLUMNS.join(', ');

/** A run of consecutive ops of one kind (and, for upserts, one set of columns), each key once. */
interface Run {
  readonly op: HotOp['op'];
  readonly shape: string;
  readonly ops: HotOp[];
  readonly at: number[];
  readonly keys: Set<string>;
}

function keyOf(o: HotOp): string {
  switch (o.op) {
    case 'journal-insert':
      return `${o.fence?.holder ?? ''}\u0000${o.fence?.epoch ?? ''}`;
    case 'journal-set':
      return String(o.id);
    case 'offer-apply':
      return offerKey(o.kind, o.externalId);
    case 'offer-events':
      return '';
    case 'offer-get':
    case 'offer-upsert':
      return offerKey(
        o.op === 'offer-get' ? o.kind : o.row.kind,
        o.op === 'offer-get' ? o.externalId : o.row.external_id,
      );
  }
}

const offerKey = (kind: string, externalId: string) => `${kind}\u0000${externalId}`;

function runsOf(ops: readonly HotOp[]): Run[] {
  const runs: Run[] = [];
  ops.forEach((o, i) => {
    const shape = o.op === 'offer-upsert' ? o.set.join(',') : o.op === 'journal-insert' ? keyOf(o) : '';
    const key = keyOf(o);
    const last = runs.at(-1);
    // Journal rows of one fence share a run; other ops each key once (one statement cannot touch a row twice).
    const fits =
      last !== undefined &&
      last.op === o.op &&
      last.shape === shape &&
      (o.op === 'journal-insert' || o.op === 'offer-events' || !last.keys.has(key));
    if (fits) {
      last.ops.push(o);
      last.at.push(i);
      last.keys.add(key);
    } else runs.push({ op: o.op, shape, ops: [o], at: [i], keys: new Set([key]) });
  });
  return runs;
}

export function postgresHotStatements(
  pool: pg.Pool,
  clock: string,
  guard: <T>(fn: () => Promise<T>) => Promise<T>,
): HotStatements {
  const names = new Map<string, string>();
  const query = (client: pg.PoolClient, text: string, values: unknown[]) => {
    let name = names.get(text);
    if (!name) {
      name = `offersync_hot_${names.size + 1}`;
      names.set(text, name);
    }
    return client.query({ name, text, values });
  };

  async function insertJournal(client: pg.PoolClient, seller: string, ops: JournalInsertOp[]) {
    const fence = ops[0]!.fence;
    const rows = ops.map((o) => o.row);
    const text =
      'INSERT INTO journal (seller, run_id, op, kind, keys, state, error, created_at, updated_at) ' +
      'SELECT $1, r.run_id, r.op, r.kind, r.keys, r.state, r.error, r.created_at, r.updated_at FROM ' +
      'unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[]) ' +
      'WITH ORDINALITY AS r(run_id, op, kind, keys, state, error, created_at, updated_at, n) ' +
      (fence
        ? `WHERE EXISTS (SELECT 1 FROM seller_leases WHERE seller = $1 AND holder = $10 AND epoch = $11 ` +
          `AND expires_at > ${clock}) `
        : '') +
      `ORDER BY r.n RETURNING ${JOURNAL_RETURNING}`;
    const values: unknown[] = [
      seller,
      rows.map((r) => r.run_id),
      rows.map((r) => r.op),
      rows.map((r) => r.kind),
      rows.map((r) => r.keys),
      rows.map((r) => r.state),
      rows.map((r) => r.error),
      rows.map((r) => r.created_at),
      rows.map((r) => r.updated_at),
    ];
    if (fence) values.push(fence.holder, fence.epoch);
    const res = await query(client, text, values);
    // Ids are drawn in the rows' order: sorted by id, the answers are in the ops' order. Fenced: none went in.
    const out = (res.rows as { id: number }[]).sort((a, b) => Number(a.id) - Number(b.id));
    return ops.map((_, i) => out[i]);
  }

  async function setJournal(client: pg.PoolClient, seller: string, ops: JournalSetOp[]) {
    const text =
      'UPDATE journal AS j SET state = u.state, updated_at = u.at, ' +
      'error = CASE WHEN u.keep THEN j.error ELSE u.error END ' +
      'FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::boolean[]) ' +
      'AS u(id, state, at, error, keep) ' +
      'WHERE j.seller = $1 AND j.id = u.id RETURNING j.id';
    const res = await query(client, text, [
      seller,
      ops.map((o) => o.id),
      ops.map((o) => o.state),
      ops.map((o) => o.at),
      ops.map((o) => o.error ?? null),
      ops.map((o) => o.error === undefined),
    ]);
    const updated = new Set((res.rows as { id: number }[]).map((r) => Number(r.id)));
    return ops.map((o) => (updated.has(o.id) ? 1 : 0));
  }

  async function getOffers(client: pg.PoolClient, seller: string, ops: OfferGetOp[]) {
    const text =
      `SELECT ${OFFER_SELECT} FROM offers WHERE seller = $1 AND (kind, external_id) IN ` +
      '(SELECT * FROM unnest($2::text[], $3::text[]))';
    const res = await query(client, text, [seller, ops.map((o) => o.kind), ops.map((o) => o.externalId)]);
    return byKey(
      res.rows as OfferRow[],
      ops.map((o) => offerKey(o.kind, o.externalId)),
    );
  }

  async function upsertOffers(client: pg.PoolClient, seller: string, ops: OfferUpsertOp[]) {
    const columns = OFFER_ROW_COLUMNS.join(', ');
    const arrays = OFFER_ROW_COLUMNS.map((c, i) => `$${i + 2}::${OFFER_TYPES[c]}[]`).join(', ');
    const set = ops[0]!.set.map((c) => `${c} = excluded.${c}`).join(', ');
    const text =
      `INSERT INTO offers (seller, ${columns}) SELECT $1, * FROM unnest(${arrays}) ` +
      `ON CONFLICT (seller, kind, external_id) DO UPDATE SET ${set} RETURNING ${OFFER_SELECT}`;
    const values: unknown[] = [seller];
    for (const c of OFFER_ROW_COLUMNS) values.push(ops.map((o) => o.row[c as keyof OffersTable]));
    const res = await query(client, text, values);
    return byKey(
      res.rows as OfferRow[],
      ops.map((o) => offerKey(o.row.kind, o.row.external_id)),
    );
  }

  /** Settles, reads, then upserts the run's offers: a statement each (one upsert per set of columns). */
  async function applyOffers(client: pg.PoolClient, seller: string, ops: OfferApplyOp[]): Promise<OfferApplied[]> {
    const settling: JournalSetOp[] = [];
    for (const o of ops)
      if (o.done) settling.push({ op: 'journal-set', id: o.done.id, state: 'done', error: undefined, at: o.done.at });
    const settled = settling.length > 0 ? await setJournal(client, seller, settling) : [];
    const stored = await getOffers(
      client,
      seller,
      ops.map((o) => ({ op: 'offer-get', kind: o.kind, externalId: o.externalId })),
    );
    const shapes = new Map<string, { ops: OfferUpsertOp[]; at: number[] }>();
    ops.forEach((o, i) => {
      const upsert: OfferUpsertOp = { op: 'offer-upsert', ...o.rowOf(stored[i]) };
      const shape = upsert.set.join(',');
      const group = shapes.get(shape) ?? { ops: [], at: [] };
      group.ops.push(upsert);
      group.at.push(i);
      shapes.set(shape, group);
    });
    const rows: (OfferRow | undefined)[] = new Array(ops.length);
    for (const group of shapes.values()) {
      const got = await upsertOffers(client, seller, group.ops);
      group.at.forEach((pos, i) => {
        rows[pos] = got[i];
      });
    }
    let s = 0;
    return ops.map((o, i) => ({ written: rows[i] !== undefined, settled: o.done ? (settled[s++] ?? 0) : 0 }));
  }

  async function recordEvents(client: pg.PoolClient, seller: string, ops: OfferEventsOp[]): Promise<number[]> {
    for (const o of ops) {
      const values: unknown[] = [seller];
      for (const c of OFFER_EVENT_COLUMNS) values.push(o.rows.map((r) => r[c]));
      await query(client, EVENT_INSERT, values);
      const touched = new Map<string, readonly [string, string]>();
      for (const r of o.rows) touched.set(offerKey(r.kind, r.external_id), [r.external_id, r.kind]);
      const keys = [...touched.values()];
      await query(client, EVENT_PRUNE, [seller, keys.map((k) => k[0]), keys.map((k) => k[1]), o.kept]);
    }
    return ops.map((o) => o.rows.length);
  }

  async function runOne(client: pg.PoolClient, seller: string, run: Run): Promise<unknown[]> {
    switch (run.op) {
      case 'journal-insert':
        return insertJournal(client, seller, run.ops as JournalInsertOp[]);
      case 'journal-set':
        return setJournal(client, seller, run.ops as JournalSetOp[]);
      case 'offer-get':
        return getOffers(client, seller, run.ops as OfferGetOp[]);
      case 'offer-upsert':
        return upsertOffers(client, seller, run.ops as OfferUpsertOp[]);
      case 'offer-apply':
        return applyOffers(client, seller, run.ops as OfferApplyOp[]);
      case 'offer-events':
        return recordEvents(client, seller, run.ops as OfferEventsOp[]);
    }
  }

  return {
    run: (seller, ops) =>
      guard(async () => {
        const runs = runsOf(ops);
        const client = await pool.connect();
        // An offer-apply or offer-events is statements of its own: they commit together too.
        const inTransaction = runs.length > 1 || runs[0]?.op === 'offer-apply' || runs[0]?.op === 'offer-events';
        let broken = false;
        try {
          if (inTransaction) await client.query('BEGIN');
          const out: unknown[] = new Array(ops.length);
          for (const run of runs) {
            const answers = await runOne(client, seller, run);
            run.at.forEach((pos, i) => {
              out[pos] = answers[i];
            });
          }
          if (inTransaction) await client.query('COMMIT');
          return out;
        } catch (err) {
          if (inTransaction) await client.query('ROLLBACK').catch(() => (broken = true));
          throw err;
        } finally {
          client.release(broken);
        }
      }),
  };
}

function byKey(rows: readonly OfferRow[], keys: readonly string[]): (OfferRow | undefined)[] {
  const found = new Map<string, OfferRow>();
  for (const r of rows) found.set(offerKey(String(r.kind), String(r.external_id)), r);
  return keys.map((k) => found.get(k));
}
