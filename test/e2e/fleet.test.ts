// The fleet operated at run time: two daemon replicas (child processes) on one PostgreSQL (embedded, 127.0.0.1)
// and one sandbox (127.0.0.1). `offersync sellers add` a seller: without a restart, one replica claims it and
// converges it, and both replicas' fleet pages show it held. A unit sold is kept in the state db, read back by
// `offersync sales` and counted on the fleet page. `offersync sellers remove` it: its replica stops it and lets go
// of its lease, and it runs no more.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { mainCaptured } from '../support/captured-io.ts';
import { queryOnce, startPostgres, type TestPostgres } from '../support/postgres.ts';
import {
  converged,
  type Fleet,
  type Ready,
  readyz,
  type ReplicaProc,
  sellerKey,
  startFleet,
  startReplica,
  stopFleet,
  writeItems,
} from '../support/replica-fleet.ts';
import { until } from '../support/until.ts';

const SELLERS = ['s1', 's2'];
const LATE = 'late-shop';
const TTL_MS = 3_000;
/** A seller added or removed is picked up within a lease period; a run of four items takes well under this. */
const PICKUP_MS = TTL_MS + 20_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = fileURLToPath(new URL('../output/fleet-page.png', import.meta.url));

let server: TestPostgres;
let url: string;
let sandbox: RunningSandbox;
let fleet: Fleet;
const procs: ReplicaProc[] = [];
let failed = true;

const query = <R>(sql: string, params: unknown[] = []) => queryOnce<R>(url, sql, params);

/** `offersync <args>` in this process: the replicas are the processes under test, the commands talk to the db. */
async function cli(args: readonly string[]) {
  const r = await mainCaptured([...args, '--config', join(fleet.dir, 'replica-1.yaml')], {
    cwd: fleet.dir,
    env: { OFFERSYNC_STATE_URL: url, OFFERSYNC_LOG_LEVEL: 'silent' },
  });
  return { code: r.code, stdout: r.out, stderr: r.err };
}

async function page(p: ReplicaProc, path = '/'): Promise<{ status: number; text: string; csp: string | null }> {
  const res = await fetch(`http://127.0.0.1:${p.port}${path}`);
  return { status: res.status, text: await res.text(), csp: res.headers.get('content-security-policy') };
}

/** The fleet page's row of a seller, as text without tags. */
function rowOf(html: string, seller: string): string | undefined {
  const row = html
    .split('<tr>')
    .map((r) => r.split('</tr>')[0] ?? '')
    .find((r) => r.includes(`<b>${seller}</b>`));
  return row
    ?.replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
  const keyed = [...SELLERS, LATE];
  fleet = await startFleet({ url, sellers: SELLERS, keyed, items: 4, ttlMs: TTL_MS, ratePerSec: 200, prefix: 'fleet' });
  sandbox = fleet.sandbox;
  writeItems({ ...fleet, sellers: [LATE] }, LATE, 300);
  writeFileSync(join(fleet.dir, 'late.key'), `${sellerKey(LATE)}\n`, { mode: 0o600 });
}, 60_000);

afterAll(async () => {
  await stopFleet(fleet, procs, { failed });
  await server?.stop();
});

describe('sellers at run time on two replicas', () => {
  it('adds a seller that runs without a restart, keeps its sales in the database, and stops it on remove', async () => {
    const both = [await startReplica(fleet, 1), await startReplica(fleet, 2)];
    procs.push(...both);
    await until('the config sellers converged', async () => (converged(fleet, 100) ? true : undefined), 90_000);
    const pids = both.map((p) => p.child.pid);

    // Added at run time: one replica claims it and converges it; both fleet pages show it held.
    const addAt = Date.now();
    const added = await cli(['sellers', 'add', LATE, '--catalogue', './cat/late-shop', '--api-key-file', 'late.key']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^seller late-shop: added \(catalogue .*cat\/late-shop, key file .*late\.key\)/);
    const lateFleet = { ...fleet, sellers: [LATE] };
    await until('the added seller converged', async () => (converged(lateFleet, 300) ? true : undefined), PICKUP_MS);
    const addedMs = Date.now() - addAt;
    const holder = await until(
      'a replica holding the added seller',
      async () => {
        const r = await Promise.all(both.map(readyz));
        const i = r.findIndex((x) => x?.held.includes(LATE));
        return i >= 0 && r[i]?.ready ? { proc: both[i] as ReplicaProc, ready: r[i] as Ready } : undefined;
      },
      PICKUP_MS,
    );
    for (const p of both) {
      const row = await until(
        'the fleet page showing the seller held and converged',
        async () => {
          const r = rowOf((await page(p)).text, LATE);
          return r?.includes('converged') && r.includes(holder.ready.replica.slice(0, 8)) ? r : undefined;
        },
        PICKUP_MS,
      );
      expect(row).toMatch(p === holder.proc ? /this replica/ : /^late-shop (?!.*this replica)/);
    }
    // No restart: the same two processes, still running.
    expect(both.map((p) => [p.child.pid, p.child.exitCode])).toEqual(pids.map((pid) => [pid, null]));
    const list = await cli(['sellers', 'list', '--json']);
    const listed = JSON.parse(list.stdout) as {
      sellers: { seller: string; api_key_file: string | null; held_by: { replica: string } | null }[];
    };
    expect(listed.sellers.map((s) => s.seller)).toEqual(['s1', 's2', LATE]);
    expect(listed.sellers[2]?.held_by?.replica).toBe(holder.ready.replica);
    expect(listed.sellers[2]?.api_key_file).toBe(join(fleet.dir, 'late.key'));
    // Where the key is, never the key.
    expect(JSON.stringify(await query('SELECT * FROM sellers'))).not.toContain(sellerKey(LATE));

    // A unit sold: kept in the state db, not on the replica's disk; read back by `offersync sales`.
    sandbox.sell('items', `${LATE}-item-0`, 1);
    writeItems(lateFleet, LATE, 310);
    const sale = await until(
      'the sale in the state db',
      async () => {
        const r = await cli(['sales', '--since', '1h', '--seller', LATE, '--json']);
        return r.stdout.trim() !== '' ? r : undefined;
      },
      PICKUP_MS,
    );
    const line = JSON.parse(sale.stdout.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ kind: 'item', external_id: `${LATE}-item-0`, quantity: 1, status: 'sold' });
    expect(existsSync(join(fleet.dir, 'state-1', 'sellers', LATE, 'sold.jsonl'))).toBe(false);
    expect(existsSync(join(fleet.dir, 'state-2', 'sellers', LATE, 'sold.jsonl'))).toBe(false);
    const every = await cli(['sales', '--since', '2020-01-01', '--json']);
    expect(
      every.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).seller),
    ).toEqual([LATE]);
    const other = both.find((p) => p !== holder.proc) as ReplicaProc;
    await until(
      "the sale counted on the other replica's fleet page",
      async () => (/ 1$/.test(rowOf((await page(other)).text, LATE) ?? '') ? true : undefined),
      PICKUP_MS,
    );
    // The seller's own page, from either replica: its daemon's page where it runs, its state elsewhere.
    for (const p of both) {
      const one = await page(p, `/sellers/${LATE}`);
      expect(one.status).toBe(200);
      expect(one.csp).toMatch(/default-src 'none'/);
      // The seller's own page, named for the seller.
      expect(one.text).toContain(`<title>${LATE} · offersync</title>`);
      expect(one.text).toContain(`${LATE}-item-0`);
      expect(one.text).not.toContain('<script');
    }
    expect((await page(other, '/sellers/nobody')).status).toBe(404);
    await screenshot(other);

    // Removed: its replica stops it and lets go of its lease; no run after that.
    const removeAt = Date.now();
    const removed = await cli(['sellers', 'remove', LATE]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('Its state and history are kept');
    await until(
      'the seller let go',
      async () => {
        const r = await Promise.all(both.map(readyz));
        const leases = await query("SELECT seller FROM seller_leases WHERE seller = $1 AND holder <> ''", [LATE]);
        return r.every((x) => x && !x.held.includes(LATE)) && leases.length === 0 ? true : undefined;
      },
      PICKUP_MS,
    );
    console.log(
      `fleet: an added seller converged ${addedMs} ms after \`sellers add\` began, a removed one was let go ` +
        `${Date.now() - removeAt} ms after \`sellers remove\` began (lease TTL ${TTL_MS} ms)`,
    );
    const runsAfter = (await query<{ n: string }>('SELECT count(*) AS n FROM runs WHERE seller = $1', [LATE]))[0]?.n;
    writeItems(lateFleet, LATE, 400);
    // A removed seller's catalogue edit starts nothing: two lease periods later, the same runs and prices.
    await new Promise((r) => setTimeout(r, 2 * TTL_MS));
    expect((await query<{ n: string }>('SELECT count(*) AS n FROM runs WHERE seller = $1', [LATE]))[0]?.n).toBe(
      runsAfter,
    );
    expect(converged(lateFleet, 310)).toBe(true);
    expect(rowOf((await page(other)).text, LATE)).toBeUndefined();
    // Its history stays: the sale is still there.
    expect((await cli(['sales', '--since', '1h', '--seller', LATE, '--json'])).stdout).toContain(`${LATE}-item-0`);
    // The config sellers kept running throughout.
    expect(both.every((p) => p.child.exitCode === null)).toBe(true);

    for (const p of both) p.child.kill('SIGTERM');
    expect(await Promise.all(both.map((p) => p.exited))).toEqual([0, 0]);
    failed = false;
  }, 240_000);
});

/** The fleet page at a phone's width and a desktop's, when Chromium is installed (.ci/run installs it). */
async function screenshot(p: ReplicaProc): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`fleet page screenshot skipped: no Chromium at ${CHROMIUM}`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    for (const width of [390, 1000]) {
      const tab = await browser.newPage({ viewport: { width, height: 700 } });
      await tab.goto(`http://127.0.0.1:${p.port}/`);
      const wide = await tab.evaluate(() => document.scrollingElement?.scrollWidth ?? 0);
      expect(wide).toBeLessThanOrEqual(width);
      await tab.screenshot({
        path: width === 390 ? SCREENSHOT.replace('.png', '-390.png') : SCREENSHOT,
        fullPage: true,
      });
      await tab.close();
    }
  } finally {
    await browser.close();
  }
}
