// One PostgreSQL server for a whole test run: vitest's globalSetup starts it in the background while the files
// load, and each test file takes a database of its own on it (test/support/postgres.ts), instead of a cluster of
// its own (initdb and a start: seconds of CPU each). A file that stops the server on purpose starts its own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED_POSTGRES_ENV, type SharedPostgresReady, startOwnPostgres, type TestPostgres } from './postgres.ts';

export default function setup(): () => Promise<void> {
  // Each vitest project runs the global setup, all in one process: the first starts the server.
  if (process.env[SHARED_POSTGRES_ENV]) return async () => {};
  const dir = mkdtempSync(join(tmpdir(), 'offersync-shared-pg-'));
  process.env[SHARED_POSTGRES_ENV] = dir;
  const ready = (r: SharedPostgresReady) => writeFileSync(join(dir, 'ready.json'), JSON.stringify(r));
  const started: Promise<TestPostgres | undefined> = startOwnPostgres().then(
    (server) => {
      ready({ port: server.port, password: server.password, dataDir: server.dataDir });
      return server;
    },
    (err: unknown) => {
      ready({ error: String(err) });
      return undefined;
    },
  );
  return async () => {
    await (await started)?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
