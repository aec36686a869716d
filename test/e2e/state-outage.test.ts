// PostgreSQL stopped under a running daemon (a child process, real sandbox marketplace, real embedded server),
// while the catalogue grows: /healthz keeps answering, /readyz says why the daemon is not ready, no write goes
// out without its journal row, nothing is lost, and once the database is back the daemon converges by itself.
// The outage lasts OFFERSYNC_OUTAGE_MS (5 s here by default, so that the suite stays short; 30 s is the figure
// of record: `OFFERSYNC_OUTAGE_MS=30000 npx vitest run test/e2e/state-outage.test.ts`). The timeline it saw is
// printed, not asserted: speed is measured, not tested.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { CLI } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { until } from '../support/until.ts';

const KEY = 'outage-key-1';
const OUTAGE_MS = Number(process.env.OFFERSYNC_OUTAGE_MS ?? 5_000);
/** A health answer slower than this fails the test: a loop frozen on the database would take 35 s. */
const PROBE_TIMEOUT_MS = 5_000;

let sandbox: RunningSandbox;
let server: TestPostgres;
let dir: string;
let child: ChildProcess | undefined;

const items = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    external_id: `out-${from + i}`,
    title: `Item ${from + i}`,
    price: 100 + i,
    stock: 1,
  }));

interface Probe {
  readonly status: number;
  readonly ms: number;
  readonly body: Record<string, unknown>;
}

/**
 * One probe on a connection of its own, as a container's liveness probe makes it: a kept-alive connection that the
 * server closes as idle while a loaded machine delays the client's own idle timer would fail the probe with a
 * reset that says nothing about the daemon.
 */
function probe(port: number, path: '/healthz' | '/readyz'): Promise<Probe> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        try {
          const body = JSON.parse(text) as Record<string, unknown>;
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - t, body });
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${path} did not answer within ${PROBE_TIMEOUT_MS} ms`)));
    req.on('error', reject);
  });
}

const listedIds = () => sandbox.dump().items.map((o) => String(o.external_id));

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  server = await startPostgres({ own: true });
  dir = mkdtempSync(join(tmpdir(), 'offersync-outage-'));
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sandbox?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('PostgreSQL stopped under a running daemon', () => {
  it('keeps /healthz up, says why on /readyz, loses nothing, sends nothing unjournaled, converges after', async () => {
    const url = await server.createDatabase();
    const port = await freePort();
    mkdirSync(join(dir, 'catalogue', 'items'), { recursive: true });
    const stock = join(dir, 'catalogue', 'items', 'stock.json');
    writeFileSync(stock, JSON.stringify(items(1, 20)));
    writeFileSync(
      join(dir, 'offersync.yaml'),
      `${[
        `baseUrl: ${sandbox.url}`,
        'catalogue:\n  dir: ./catalogue',
        'state:\n  path: ./state/state.db\n  leaseTtlMs: 3000',
        `daemon:\n  debounceMs: 100\n  healthHost: 127.0.0.1\n  healthPort: ${port}`,
      ].join('\n')}\n`,
    );
    let log = '';
    child = spawn(process.execPath, [...CLI, 'daemon', '--config', join(dir, 'offersync.yaml')], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        OFFERSYNC_API_KEY: KEY,
        OFFERSYNC_STATE_URL: url,
        OFFERSYNC_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    const said = () => `\nthe daemon said:\n${log.slice(-4000)}`;

    await until(
      'the first 20 items on the marketplace',
      async () => (listedIds().length >= 20 ? true : undefined),
      60_000,
    );
    await until(
      'ready',
      async () => ((await probe(port, '/readyz').catch(() => null))?.status === 200 ? true : undefined),
      30_000,
    );

    const timeline: string[] = [];
    const t0 = performance.now();
    const at = (what: string) => timeline.push(`${((performance.now() - t0) / 1000).toFixed(1)} s  ${what}`);
    await server.halt();
    at('PostgreSQL stopped');
    // The catalogue grows while the database is away: the daemon sees it and tries to run.
    writeFileSync(stock, JSON.stringify(items(1, 40)));
    at('catalogue: 20 items added');

    const health: Probe[] = [];
    let notReady: Probe | undefined;
    const outageEnds = performance.now() + OUTAGE_MS;
    while (performance.now() < outageEnds) {
      const h = await probe(port, '/healthz');
      health.push(h);
      expect(h.status, said()).toBe(200);
      if (!notReady) {
        const r = await probe(port, '/readyz');
        if (r.status === 503 && typeof r.body.reason === 'string') {
          notReady = r;
          at(`/readyz 503: ${String(r.body.reason).slice(0, 140)}`);
        }
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    at(
      `/healthz answered ${health.length} probes, all 200, ` +
        `slowest ${Math.max(...health.map((h) => h.ms)).toFixed(0)} ms`,
    );
    expect(notReady, `/readyz never said why it was not ready during the outage${said()}`).toBeDefined();
    expect(String(notReady?.body.reason)).toMatch(/state db/);

    await server.resume();
    at('PostgreSQL started again');
    await until('all 40 items on the marketplace', async () => (listedIds().length >= 40 ? true : undefined), 120_000);
    at('all 40 items on the marketplace');
    await until('ready again', async () => ((await probe(port, '/readyz')).status === 200 ? true : undefined), 60_000);
    at('/readyz 200 again');
    console.log(`state outage of ${OUTAGE_MS} ms, timeline:\n  ${timeline.join('\n  ')}`);

    // Nothing lost, nothing twice.
    const ids = listedIds();
    expect(ids.sort()).toEqual(
      items(1, 40)
        .map((i) => i.external_id)
        .sort(),
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const mapped = await client.query<{ external_id: string; remote_id: number }>(
        "SELECT external_id, remote_id FROM offers WHERE seller = 'default' AND kind = 'item'",
      );
      const live = new Map(sandbox.dump().items.map((o) => [String(o.external_id), Number(o.id)]));
      expect(new Map(mapped.rows.map((r) => [r.external_id, Number(r.remote_id)]))).toEqual(live);
      // Every item created has the journal row written before its request went out.
      const journaled = await client.query<{ keys: string }>(
        "SELECT keys FROM journal WHERE seller = 'default' AND op = 'create' AND kind = 'item'",
      );
      const withRow = new Set(journaled.rows.flatMap((r) => JSON.parse(r.keys) as string[]));
      expect(ids.filter((id) => !withRow.has(id))).toEqual([]);
      const open = await client.query("SELECT count(*)::int AS n FROM journal WHERE state IN ('pending', 'sent')");
      expect(open.rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
    child.kill('SIGTERM');
    await new Promise((r) => child?.once('exit', r));
  }, 240_000);
});
