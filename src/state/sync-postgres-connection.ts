// One PostgreSQL connection with a synchronous face, so the PostgreSQL store keeps the StateStore interface
// that the sqlite store (better-sqlite3) has: every method returns its result, not a promise. node-postgres
// is asynchronous, so it runs in a worker thread and this thread waits on a shared Int32Array (Atomics.wait)
// for each answer, then reads it with receiveMessageOnPort. Like better-sqlite3 waiting for the disk, the
// event loop stands still for one round trip per statement (about 0.1-0.5 ms to a database nearby).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { PostgresAnswer, PostgresRequest, PostgresWorkerData } from './postgres-worker.ts';

export interface SyncPostgresOptions {
  /** postgres://user[:password]@host:port/database */
  readonly url: string;
  /** Used when the URL has no password. */
  readonly password?: string;
  /** The server cancels a statement after this long; this thread gives up a little later. Default 30 s. */
  readonly statementTimeoutMs?: number;
  /** Default 10 s. */
  readonly connectTimeoutMs?: number;
}

/** A statement PostgreSQL refused or could not run; the message never holds the password. */
export class PostgresError extends Error {
  override readonly name = 'PostgresError';
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export interface QueryResult<R> {
  readonly rows: R[];
  /** Rows an INSERT, UPDATE or DELETE touched. */
  readonly rowCount: number;
}

/** The URL with its password replaced, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(a PostgreSQL URL that does not parse)';
  }
}

/** The worker's code: from source (tsx, vitest) a .ts file loaded through tsx's API; compiled, plain .js. */
function workerEntry(): { code: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { code: new URL('./postgres-worker.js', import.meta.url), eval: false };
  // tsx's ESM API (the .mjs twin of what require resolves); --import in a worker's execArgv does not take on Node 20.
  const api = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const worker = new URL('./postgres-worker.ts', import.meta.url).href;
  const load = `import(${JSON.stringify(api)})`;
  const code = `${load}.then((m) => { m.register(); return import(${JSON.stringify(worker)}); })`;
  return { code, eval: true };
}

export class SyncPostgresConnection {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal: Int32Array;
  readonly #waitMs: number;
  readonly #secrets: string[];
  readonly #where: string;
  #nextId = 0;
  #closed = false;

  constructor(opts: SyncPostgresOptions) {
    const statementTimeoutMs = opts.statementTimeoutMs ?? 30_000;
    const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
    this.#waitMs = Math.max(statementTimeoutMs, connectTimeoutMs) + 5_000;
    this.#where = redactUrl(opts.url);
    let urlPassword = '';
    try {
      urlPassword = decodeURIComponent(new URL(opts.url).password);
    } catch {
      throw new PostgresError(`state.url is not a URL: expected postgres://user@host:5432/database`, undefined);
    }
    this.#secrets = [urlPassword, opts.password ?? ''].filter((s) => s.length > 0);
    const shared = new SharedArrayBuffer(4);
    this.#signal = new Int32Array(shared);
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    const entry = workerEntry();
    const data: PostgresWorkerData = {
      url: opts.url,
      password: urlPassword ? undefined : opts.password,
      statementTimeoutMs,
      connectTimeoutMs,
      signal: shared,
      port: port2,
    };
    this.#worker = new Worker(entry.code, { eval: entry.eval, workerData: data, transferList: [port2] });
    // The worker must not keep a finished process alive; close() ends it.
    this.#worker.unref();
    this.#port.unref();
  }

  query<R>(sql: string, params: readonly unknown[] = []): QueryResult<R> {
    if (this.#closed) throw new PostgresError(`state db ${this.#where}: connection closed`, undefined);
    const id = ++this.#nextId;
    this.#port.postMessage({ id, sql, params } satisfies PostgresRequest);
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      const seen = Atomics.load(this.#signal, 0);
      if (seen >= id) break;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new PostgresError(
          `state db ${this.#where}: no answer within ${this.#waitMs} ms; is PostgreSQL reachable?`,
          undefined,
        );
      }
      Atomics.wait(this.#signal, 0, seen, left);
    }
    for (;;) {
      const msg = receiveMessageOnPort(this.#port);
      if (!msg) throw new PostgresError(`state db ${this.#where}: answer ${id} missing`, undefined);
      const answer = msg.message as PostgresAnswer;
      // An answer to a request this thread stopped waiting for: drop it.
      if (answer.id < id) continue;
      if (answer.ok) return { rows: answer.rows as R[], rowCount: answer.rowCount };
      throw new PostgresError(`state db ${this.#where}: ${this.#scrub(answer.message)}`, answer.code);
    }
  }

  #scrub(text: string): string {
    let out = text;
    for (const s of this.#secrets) out = out.split(s).join('***');
    return out;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#port.postMessage('close');
    // The worker closes the pool, then its port; terminate covers a worker stuck on a dead server.
    setTimeout(() => void this.#worker.terminate(), 2_000).unref();
  }
}
