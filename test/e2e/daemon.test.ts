// The daemon as a child process: initial reconcile, a saved file reaches the sandbox, /healthz and /metrics
// answer, SIGTERM ends it with exit 0, and a second daemon on the same state db waits (not ready, saying why)
// until the first is gone, then takes over without exiting.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { type DaemonProc, daemonYaml, startDaemon } from '../support/daemon-process.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/until.ts';

const KEY = 'daemon-key-777';

let sandbox: RunningSandbox;
let dir: string;
let healthPort: number;
let secondPort: number;

const daemon = (config = 'offersync.yaml') =>
  startDaemon(join(dir, config), { PATH: process.env.PATH, OFFERSYNC_API_KEY: KEY, OFFERSYNC_LOG_LEVEL: 'info' });

function items(list: { external_id: string; price: number }[]): void {
  writeFileSync(
    join(dir, 'catalogue', 'items', 'stock.json'),
    JSON.stringify(list.map((i) => ({ ...i, title: `Item ${i.external_id}` }))),
  );
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-daemon-'));
  for (const sub of ['accounts', 'items', 'top-ups']) mkdirSync(join(dir, 'catalogue', sub), { recursive: true });
  healthPort = await freePort();
  secondPort = await freePort();
  for (const [file, port] of [
    ['offersync.yaml', healthPort],
    ['second.yaml', secondPort],
  ] as const) {
    writeFileSync(join(dir, file), daemonYaml({ baseUrl: sandbox.url, healthPort: port }));
  }
  items([{ external_id: 'd-1', price: 100 }]);
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('offersync daemon', () => {
  it('reconciles at start and on every saved file, serves health and metrics, and stops cleanly on ' +
    'SIGTERM', async () => {
    const d = daemon();
    let second: DaemonProc | undefined;
    try {
      await until('the initial reconcile', () => (sandbox.dump().items.length === 1 ? true : undefined), 20_000, 50);
      const ready = await until(
        'readyz',
        async () => {
          const r = await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => null);
          return r?.status === 200 ? r : undefined;
        },
        20_000,
        50,
      );
      expect(((await ready.json()) as { ready: boolean }).ready).toBe(true);

      // A second daemon on the same state db waits for the writer lease: alive, not ready, and says why.
      second = daemon('second.yaml');
      const waiting = await until(
        'the second daemon to wait',
        async () => {
          const r = await fetch(`http://127.0.0.1:${secondPort}/readyz`).catch(() => null);
          return r?.status === 503 ? ((await r.json()) as { ok: boolean; reason?: string }) : undefined;
        },
        20_000,
        50,
      );
      expect(waiting.ok).toBe(true);
      expect(waiting.reason).toMatch(/waiting for the writer lease: another offersync \(instance [0-9a-f-]+, pid \d+/);

      items([
        { external_id: 'd-1', price: 150 },
        { external_id: 'd-2', price: 200 },
      ]);
      await until(
        'the change to reach the marketplace',
        () => {
          const dump = sandbox.dump().items;
          return dump.length === 2 && dump.find((i) => i.external_id === 'd-1')?.price === 150 ? true : undefined;
        },
        20_000,
        50,
      );
      items([{ external_id: 'd-2', price: 200 }]);
      await until(
        'the removal to archive d-1',
        () => (sandbox.dump().items.find((i) => i.external_id === 'd-1')?.status === 'archived' ? true : undefined),
        20_000,
        50,
      );

      const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
      expect(metrics).toMatch(/offersync_runs_total\{seller="default",outcome="converged",trigger="start"\} 1/);
      expect(metrics).toMatch(/trigger="files"/);
      // Offers held back by their per-offer backoff (none here).
      expect(metrics).toMatch(/offersync_offers_held_back\{seller="default",state="waiting"\} 0/);
      expect(metrics).toMatch(
        /offersync_requests_total\{seller="default",kind="item",method="POST",status_class="2xx"\} [1-9]/,
      );
      expect(metrics).toMatch(/offersync_writer_lease_held\{seller="default"\} 1/);
      const check = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
      if (!check.error || process.env.REQUIRE_PROMTOOL) expect(`${check.stdout}${check.stderr}`.trim()).toBe('');

      // kill -9 of the holder: on the same machine its pid proves it gone, so the waiting daemon takes over
      // at once (across containers it waits for the lease to expire instead).
      d.child.kill('SIGKILL');
      await d.exited;
      await until(
        'the second daemon to become ready',
        async () => {
          const r = await fetch(`http://127.0.0.1:${secondPort}/readyz`).catch(() => null);
          return r?.status === 200 ? true : undefined;
        },
        20_000,
        50,
      );
      items([{ external_id: 'd-2', price: 250 }]);
      await until(
        'a change to reach the marketplace through the second daemon',
        () => (sandbox.dump().items.find((i) => i.external_id === 'd-2')?.price === 250 ? true : undefined),
        20_000,
        50,
      );
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      expect(second.stderr()).toMatch(/took over the writer lease/);
    } finally {
      d.child.kill('SIGKILL');
      second?.child.kill('SIGKILL');
    }
    expect(d.stderr()).not.toContain(KEY);
  }, 60_000);
});
