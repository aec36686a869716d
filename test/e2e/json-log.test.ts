// The daemon's JSON log holds JSON only: every line a log collector reads parses, whatever ran (cron ticks and
// sweeps, a catalogue edit, a catalogue error, the stop). A library writing its own coloured lines would break it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { daemonYaml, startDaemon } from '../support/daemon-process.ts';
import { until } from '../support/until.ts';

const KEY = 'json-log-key-1';

let sandbox: RunningSandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-json-log-'));
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const item = (id: string, price: number) => ({ external_id: id, title: `Item ${id}`, price, stock: 1 });

describe('the JSON log', () => {
  it('is JSON lines only through ticks, sweeps, an edit, a bad file and the stop', async () => {
    mkdirSync(join(dir, 'catalogue', 'items'), { recursive: true });
    const stock = join(dir, 'catalogue', 'items', 'stock.json');
    writeFileSync(stock, JSON.stringify([item('J-1', 150)]));
    const config = join(dir, 'offersync.yaml');
    writeFileSync(
      config,
      daemonYaml({
        baseUrl: sandbox.url,
        healthPort: 0,
        more: [
          'log:\n  format: json\n  level: debug',
          'schedule:\n  tick: "* * * * * *"\n  fullSweep: "*/2 * * * * *"',
        ],
      }),
    );
    const d = startDaemon(
      config,
      { PATH: process.env.PATH ?? '', OFFERSYNC_API_KEY: KEY, FORCE_COLOR: '1' },
      { cwd: dir },
    );
    try {
      await until('J-1 listed', () => sandbox.dump().items.some((o) => o.external_id === 'J-1'));
      writeFileSync(stock, JSON.stringify([item('J-1', 175), item('J-2', 150)]));
      writeFileSync(join(dir, 'catalogue', 'items', 'broken.json'), '[{"external_id": ');
      await until('J-2 listed', () => sandbox.dump().items.some((o) => o.external_id === 'J-2'));
      // A few more ticks and sweeps of the schedule.
      await until('three scheduled runs', () => (d.stderr().match(/"trigger":"(tick|full)"/g) ?? []).length >= 3);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
    }
    const lines = d
      .stderr()
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(5);
    const notJson = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
  });
});
