// A daemon never exits by itself, whatever its configuration: with its health server off (nothing listens), with
// every seller held by another replica, with every seller broken. Each daemon here runs as a child process and is
// watched for a few seconds after it settled; only SIGTERM ends it, with exit 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { CLI } from '../support/cli.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { until } from '../support/until.ts';

const KEY = 'stays-up-key-1';
/** How long a settled daemon is watched: the broken daemon's first exit came well under a second after start. */
const WATCH_MS = 3_000;

let sandbox: RunningSandbox;
let server: TestPostgres;
let dir: string;
const children: ChildProcess[] = [];

interface DaemonProc {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startDaemon(name: string, config: string[], env: Record<string, string> = {}): DaemonProc {
  const home = join(dir, name);
  mkdirSync(join(home, 'catalogue', 'items'), { recursive: true });
  writeFileSync(
    join(home, 'catalogue', 'items', 'stock.json'),
    JSON.stringify([{ external_id: `${name}-1`, title: `Item of ${name}`, price: 150, stock: 1 }]),
  );
  writeFileSync(
    join(home, 'offersync.yaml'),
    `${[
      `baseUrl: ${sandbox.url}`,
      'catalogue:\n  dir: ./catalogue',
      'state:\n  path: ./state/state.db\n  leaseTtlMs: 2000',
      'daemon:\n  debounceMs: 100\n  healthPort: 0',
      ...config,
    ].join('\n')}\n`,
  );
  const child = spawn(process.execPath, [...CLI, 'daemon', '--config', join(home, 'offersync.yaml')], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '', OFFERSYNC_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr: () => err, exited };
}

/** Still running WATCH_MS after it settled, then SIGTERM ends it with exit 0. */
async function staysUpThenStops(expect: ExpectStatic, d: DaemonProc): Promise<void> {
  const early = await Promise.race([d.exited, new Promise<null>((r) => setTimeout(() => r(null), WATCH_MS))]);
  expect(early, `the daemon exited by itself; it said:\n${d.stderr()}`).toBeNull();
  d.child.kill('SIGTERM');
  expect(await d.exited).toEqual({ code: 0, signal: null });
}

/** true once the item is on the sandbox, else undefined (for until). */
const listed = (externalId: string): true | undefined =>
  sandbox.dump().items.some((o) => o.external_id === externalId) ? true : undefined;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  server = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'offersync-stays-up-'));
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sandbox?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The cases share nothing but the sandbox and the PostgreSQL server (each its own folder, database and offers), and
// most of each is watching a daemon wait: they run side by side.
describe.concurrent('the daemon never exits by itself', () => {
  it('with the health server off and sqlite state: converges, then keeps watching', async ({ expect }) => {
    const d = startDaemon('sqlite-no-health', [], { OFFERSYNC_API_KEY: KEY });
    await until('the item on the marketplace', async () => listed('sqlite-no-health-1'), 30_000);
    await staysUpThenStops(expect, d);
  }, 60_000);

  it('with PostgreSQL state and the health server off: claims its seller, converges, keeps running', async ({
    expect,
  }) => {
    const url = await server.createDatabase();
    const d = startDaemon('pg-no-health', [], { OFFERSYNC_API_KEY: KEY, OFFERSYNC_STATE_URL: url });
    await until('the item on the marketplace', async () => listed('pg-no-health-1'), 30_000);
    await staysUpThenStops(expect, d);
  }, 60_000);

  it('with every seller held by another replica: waits for them, never exits', async ({ expect }) => {
    const url = await server.createDatabase();
    // The first daemon on the database creates the schema; then another replica takes the lease for an hour.
    const first = startDaemon('pg-unclaimed', [], { OFFERSYNC_API_KEY: KEY, OFFERSYNC_STATE_URL: url });
    await until('the item on the marketplace', async () => listed('pg-unclaimed-1'), 30_000);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(
        `INSERT INTO seller_leases (seller, holder, pid, hostname, epoch, expires_at)
         VALUES ('default', 'another-replica', 1, 'elsewhere', 100,
                 (extract(epoch from now()) * 1000)::bigint + 3600000)
         ON CONFLICT (seller) DO UPDATE SET holder = excluded.holder, epoch = excluded.epoch,
           expires_at = excluded.expires_at`,
      );
    } finally {
      await c.end();
    }
    const d = startDaemon('pg-unclaimed', [], { OFFERSYNC_API_KEY: KEY, OFFERSYNC_STATE_URL: url });
    await until(
      'the replica started',
      async () => (d.stderr().includes('replica starting') ? true : undefined),
      30_000,
    );
    await staysUpThenStops(expect, d);
    expect(d.stderr()).not.toContain('seller claimed');
  }, 90_000);

  it('with every seller broken (no key for any): says why, and keeps running', async ({ expect }) => {
    const d = startDaemon('broken', [
      'sellers:',
      '  - id: one\n    catalogue: ./catalogue\n    apiKeyEnv: NO_SUCH_KEY_ONE',
      '  - id: two\n    catalogue: ./catalogue\n    apiKeyEnv: NO_SUCH_KEY_TWO',
    ]);
    await until(
      'both sellers reported broken',
      async () => ((d.stderr().match(/seller cannot start/g) ?? []).length >= 2 ? true : undefined),
      30_000,
    );
    await staysUpThenStops(expect, d);
  }, 60_000);
});
