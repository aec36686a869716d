// SIGTERM and SIGINT as child processes receive them: a one-shot reconcile stopped mid-run starts no further
// write, lets those in flight finish, leaves no unfinished journal entry and exits 1; a second signal exits at
// once; the next run converges with no duplicate. Requests dropped from the queue at the stop are reported
// skipped, not failed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import type { RunReport } from '../../src/sync/report/run-report.ts';
import { CLI } from '../support/cli.ts';
import { daemonYaml, startDaemon } from '../support/daemon-process.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/until.ts';

const KEY = 'signals-key-4321';
const OFFERS = 60;
let sandbox: RunningSandbox;
let dir: string;

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function reconcile(): Run {
  const child = spawn(process.execPath, [...CLI, 'reconcile', '--json', '--config', join(dir, 'offersync.yaml')], {
    env: { PATH: process.env.PATH, OFFERSYNC_API_KEY: KEY, OFFERSYNC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

beforeAll(async () => {
  // Slow answers and a low rate keep the run long enough to be stopped in the middle of its writes.
  sandbox = await startSandbox({ apiKeys: [KEY], faults: { latencyMs: 40 } });
  dir = mkdtempSync(join(tmpdir(), 'offersync-signals-'));
  for (const sub of ['accounts', 'items', 'top-ups']) mkdirSync(join(dir, 'catalogue', sub), { recursive: true });
  const items = Array.from({ length: OFFERS }, (_, i) => ({
    external_id: `s-${i}`,
    title: `Item ${i}`,
    price: 100 + i,
  }));
  writeFileSync(join(dir, 'catalogue', 'items', 'items.json'), JSON.stringify(items));
  writeFileSync(
    join(dir, 'offersync.yaml'),
    `baseUrl: ${sandbox.url}\ncatalogue:\n  dir: ./catalogue\nstate:\n  path: ./state/state.db\n` +
      'rateLimit:\n  ratePerSec: 20\n  burst: 2\n  concurrency: 2\n',
  );
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Each test starts CLI processes: slow when the host is busy.
describe('stop signals', { timeout: 120_000 }, () => {
  it('SIGTERM mid-run: no further write, exit 1, journal settled; the next run converges, no duplicate', async () => {
    const run = reconcile();
    try {
      await until('a few creates', () => sandbox.dump().items.length >= 5, 60_000, 20);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(1);
    } finally {
      run.child.kill('SIGKILL');
    }
    expect(run.stderr()).toMatch(/SIGTERM: stopping\. No further write is started/);
    const created = sandbox.dump().items.length;
    expect(created).toBeLessThan(OFFERS);
    const store = await openStateStore(join(dir, 'state', 'state.db'));
    expect(await store.journalUnfinished()).toEqual([]);
    const stopped = (await store.listRuns(1))[0];
    expect(stopped?.outcome).toBe('stopped');
    store.close();
    // The requests still queued at the stop were never sent: work not done, not failures.
    const report = JSON.parse(run.stdout()) as RunReport;
    expect(report.outcome).toBe('stopped');
    const skipped = report.outcomes.filter((o) => o.outcome === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    for (const o of skipped) expect(o.message).toMatch(/the run was stopped before it was sent/);
    expect(report.outcomes.filter((o) => o.outcome === 'failed')).toEqual([]);
    expect(stopped?.counts['item.failed']).toBeUndefined();
    expect(stopped?.counts['item.skipped']).toBe(skipped.length);

    const again = reconcile();
    expect(await again.exited).toBe(0);
    const ids = sandbox.dump().items.map((i) => i.external_id);
    expect(ids).toHaveLength(OFFERS);
    expect(new Set(ids).size).toBe(OFFERS);
  });

  it('a second signal exits at once with 128 + its number', async () => {
    writeFileSync(
      join(dir, 'catalogue', 'items', 'items.json'),
      JSON.stringify(
        Array.from({ length: OFFERS }, (_, i) => ({ external_id: `s-${i}`, title: `New ${i}`, price: 150 })),
      ),
    );
    const run = reconcile();
    try {
      await until(
        'a few updates',
        () => sandbox.dump().items.some((i) => String(i.title).startsWith('New')),
        60_000,
        20,
      );
      // Answers slow enough that the writes in flight are still running when the second signal comes: on a
      // busy host, 40 ms of latency let the graceful stop finish first (exit 1) now and then.
      sandbox.setFaults({ latencyMs: 5_000 });
      await new Promise((r) => setTimeout(r, 300)); // the next writes are sent and held
      run.child.kill('SIGINT');
      await until('the first signal to be handled', () => /SIGINT: stopping/.test(run.stderr()), 60_000, 20);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
    } finally {
      sandbox.setFaults({ latencyMs: 40 });
      run.child.kill('SIGKILL');
    }
  });

  it('SIGHUP (a closed terminal) stops a reconcile as SIGTERM does: journal settled, lease let go', async () => {
    writeFileSync(
      join(dir, 'catalogue', 'items', 'items.json'),
      JSON.stringify(
        Array.from({ length: OFFERS }, (_, i) => ({ external_id: `s-${i}`, title: `Hup ${i}`, price: 170 })),
      ),
    );
    const run = reconcile();
    try {
      await until(
        'a few updates',
        () => sandbox.dump().items.some((i) => String(i.title).startsWith('Hup')),
        60_000,
        20,
      );
      run.child.kill('SIGHUP');
      expect(await run.exited).toBe(1);
    } finally {
      run.child.kill('SIGKILL');
    }
    expect(run.stderr()).toMatch(/SIGHUP: stopping\. No further write is started/);
    const store = await openStateStore(join(dir, 'state', 'state.db'));
    expect(await store.journalUnfinished()).toEqual([]);
    store.close();
    // The lease was let go: a one-shot run (which fails at once on a held lease) goes through.
    const again = reconcile();
    expect(await again.exited).toBe(0);
  });

  it('SIGHUP stops the daemon as SIGTERM does: exit 0', async () => {
    const port = await freePort();
    writeFileSync(join(dir, 'daemon.yaml'), daemonYaml({ baseUrl: sandbox.url, healthPort: port }));
    const daemon = startDaemon(
      join(dir, 'daemon.yaml'),
      { PATH: process.env.PATH, OFFERSYNC_API_KEY: KEY },
      { cwd: dir },
    );
    try {
      await until(
        'the daemon ready',
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
        60_000,
        50,
      );
      daemon.child.kill('SIGHUP');
      expect(await daemon.exited, daemon.stderr()).toBe(0);
    } finally {
      daemon.child.kill('SIGKILL');
    }
  });
});
