// A daemon whose run a guard stopped carries on: it says so on /readyz and the status page, still records the
// units sold meanwhile (sold.jsonl, /metrics), and clears the stop once a run gets through.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { type DaemonProc, daemonYaml, startDaemon } from '../support/daemon-process.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/until.ts';

const KEY = 'daemon-guard-key-31';

let sandbox: RunningSandbox;
let dir: string;
let port: number;
let daemon: DaemonProc | undefined;

const get = async (path: string) => {
  const r = await fetch(`http://127.0.0.1:${port}${path}`).catch(() => null);
  return r ? { status: r.status, text: await r.text() } : null;
};

function prices(divisor: number): void {
  const rows = Array.from({ length: 12 }, (_, i) => ({
    external_id: `sku-${i}`,
    title: `Skin ${i}`,
    price: Math.floor((2000 + i) / divisor),
    stock: 5,
  }));
  writeFileSync(join(dir, 'catalogue', 'items', 'skins.json'), JSON.stringify(rows));
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-daemon-guard-'));
  mkdirSync(join(dir, 'catalogue', 'items'), { recursive: true });
  port = await freePort();
  writeFileSync(join(dir, 'offersync.yaml'), daemonYaml({ baseUrl: sandbox.url, healthPort: port }));
});

afterAll(async () => {
  daemon?.child.kill('SIGKILL');
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a daemon stopped by a guard', () => {
  it('says so on /readyz and the status page, records sales meanwhile, and clears it once a run passes', async () => {
    prices(1);
    daemon = startDaemon(join(dir, 'offersync.yaml'), {
      PATH: process.env.PATH,
      OFFERSYNC_API_KEY: KEY,
      OFFERSYNC_LOG_LEVEL: 'warn',
    });
    await until('the first run', async () => ((await get('/readyz'))?.status === 200 ? true : undefined), 30_000, 50);
    expect(sandbox.dump().items.filter((i) => i.price === 2005)).toHaveLength(1);

    // Integer cents a hundred times too small: the price guard stops the run.
    prices(100);
    const stopped = await until(
      'the guard stop',
      async () => {
        const r = await get('/readyz');
        return r?.text.includes('stopped_by_guard') ? r : undefined;
      },
      30_000,
      50,
    );
    expect(stopped.status).toBe(200);
    expect(JSON.parse(stopped.text).stopped_by_guard.message).toMatch(/^price guard: 12 of 12 priced offers/);
    const page = (await get('/'))!.text;
    expect(page).toContain('A guard stopped the run of');
    expect(page).toContain('held back by the price guard (not sent): item sku-0 20.00 -&gt; 0.20');
    expect(sandbox.dump().items.filter((i) => i.price === 2005)).toHaveLength(1);

    // It carries on: a sale made meanwhile is recorded by the next run, which the guard stops again.
    sandbox.sell('items', 'sku-3', 2);
    // A file saved starts a run (the daemon's schedule is minutes away).
    writeFileSync(
      join(dir, 'catalogue', 'items', 'other.json'),
      JSON.stringify([{ external_id: 'o-1', title: 'O', price: 1 }]),
    );
    const soldLog = join(dir, 'state', 'sold.jsonl');
    // A whole line: the file may be seen made and still empty, a moment before the line is in it.
    const line = await until(
      'the sale in sold.jsonl',
      async () =>
        existsSync(soldLog) && readFileSync(soldLog, 'utf8').endsWith('\n') ? readFileSync(soldLog, 'utf8') : undefined,
      30_000,
      50,
    );
    expect(JSON.parse(line.trim())).toMatchObject({
      kind: 'item',
      external_id: 'sku-3',
      quantity: 2,
    });
    // The run's metrics are recorded once it ends, a moment after sold.jsonl is written.
    await until(
      'the units-sold counter',
      async () =>
        (await get('/metrics'))?.text.includes('offersync_units_sold_total{seller="default",kind="item"} 2')
          ? true
          : undefined,
      30_000,
      50,
    );
    expect((await get('/'))!.text).toContain('2 sold');
    // The alert's metrics: the stop stands, and each stopped run is counted.
    const guardMetrics = (await get('/metrics'))!.text;
    expect(guardMetrics).toContain('offersync_guard_stopped{seller="default"} 1');
    expect(guardMetrics).toMatch(/^offersync_guard_stops_total\{seller="default"\} [2-9]/m);
    expect(sandbox.dump().items.find((i) => i.external_id === 'sku-3')).toMatchObject({ stock: 3, sold_count: 2 });

    // The prices put right: the run gets through and the stop is gone.
    prices(1);
    await until(
      'the stop cleared',
      async () => {
        const r = await get('/readyz');
        return r && r.status === 200 && !r.text.includes('stopped_by_guard') ? true : undefined;
      },
      30_000,
      50,
    );
    expect(sandbox.dump().items.find((i) => i.external_id === 'sku-3')).toMatchObject({ stock: 3, price: 2003 });
    expect((await get('/metrics'))!.text).toContain('offersync_guard_stopped{seller="default"} 0');
  }, 180_000);
});
