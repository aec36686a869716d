// The worker thread behind SyncPostgresConnection: runs each statement on one PostgreSQL connection through
// kysely's PostgresDialect and node-postgres, then wakes the main thread waiting on the shared signal.
import { type MessagePort, workerData } from 'node:worker_threads';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

export interface PostgresWorkerData {
  readonly url: string;
  /** From PGPASSWORD or OFFERSYNC_STATE_URL_FILE when the URL has none; never logged. */
  readonly password: string | undefined;
  readonly statementTimeoutMs: number;
  readonly connectTimeoutMs: number;
  /** Int32Array view: [0] = id of the last answered request. */
  readonly signal: SharedArrayBuffer;
  readonly port: MessagePort;
}

export interface PostgresRequest {
  readonly id: number;
  readonly sql: string;
  readonly params: readonly unknown[];
}

export type PostgresAnswer =
  | { readonly id: number; readonly ok: true; readonly rows: unknown[]; readonly rowCount: number }
  | { readonly id: number; readonly ok: false; readonly message: string; readonly code: string | undefined };

// Epoch milliseconds are BIGINT columns: well inside 2^53, so numbers, as the sqlite store returns them.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

const data = workerData as PostgresWorkerData;
const signal = new Int32Array(data.signal);
// One connection: the store's transactions are BEGIN ... COMMIT statements sent one by one, so they must
// all run on the same session.
const pool = new pg.Pool({
  connectionString: withPassword(data.url, data.password),
  max: 1,
  connectionTimeoutMillis: data.connectTimeoutMs,
  statement_timeout: data.statementTimeoutMs,
  application_name: 'offersync',
});
// A dropped connection is reported on the next statement; without a listener it would end the worker.
pool.on('error', () => undefined);
const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });

/** node-postgres lets the URL's (missing) password win over a separate one: put it into the URL. */
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
}

let queue = Promise.resolve();
data.port.on('message', (req: PostgresRequest | 'close') => {
  if (req === 'close') {
    queue = queue.then(async () => {
      await db.destroy().catch(() => undefined);
      data.port.close();
    });
    return;
  }
  queue = queue.then(async () => {
    let answer: PostgresAnswer;
    try {
      const res = await db.executeQuery(CompiledQuery.raw(req.sql, [...req.params]));
      answer = { id: req.id, ok: true, rows: res.rows as unknown[], rowCount: Number(res.numAffectedRows ?? 0) };
    } catch (err) {
      const e = err as { message?: string; code?: string };
      answer = { id: req.id, ok: false, message: String(e.message ?? err), code: e.code };
    }
    data.port.postMessage(answer);
    Atomics.store(signal, 0, req.id);
    Atomics.notify(signal, 0);
  });
});
