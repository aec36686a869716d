// kill -9 at random moments (docs/architecture.md, Journal): a bounded loop of 20 rounds runs `offersync reconcile` as
// a child process against a sandbox on 127.0.0.1, kills it with SIGKILL after a random delay, and alternates the
// catalogue between two versions. A last, uninterrupted run must converge: remote == catalogue, no external_id twice,
// the state maps every offer.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { CLI } from '../support/cli.ts';

const KEY = 'crash-test-key-987';
const ROUNDS = 20;

let sandbox: RunningSandbox;
let dir: string;

function writeCatalogue(version: number): void {
  const cat = join(dir, 'catalogue');
  const accounts = Array.from({ length: 30 }, (_, i) => i)
    .filter((i) => version === 0 || i % 6 !== 0)
    .map((i) => ({ external_id: `acc-${i}`, title: `Account ${i}`, price: 1000 + i + version * 7, level: i }));
  const items = Array.from({ length: 15 }, (_, i) => ({
    external_id: `it-${i}`,
    title: `Item ${i}`,
    price: 100 + i,
    stock: version + 1,
  }));
  const topups = Array.from({ length: 15 }, (_, i) => i)
    .filter((i) => version === 0 || i % 5 !== 0)
    .map((i) => ({ external_id: `tu-${i}`, offer_title: `${i} gems`, price: 50 + i + version, offer_amount: i + 1 }));
  writeFileSync(join(cat, 'accounts', 'a.json'), JSON.stringify(accounts));
  writeFileSync(join(cat, 'items', 'i.json'), JSON.stringify(items));
  writeFileSync(join(cat, 'top-ups', 't.json'), JSON.stringify(topups));
}

function runCli(
  killAfterMs: number | null,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, 'reconcile', '--config', join(dir, 'offersync.yaml')], {
      env: { PATH: process.env.PATH, OFFERSYNC_API_KEY: KEY, OFFERSYNC_LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = killAfterMs === null ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

beforeAll(async () => {
  // A little latency keeps a run long enough for kills to land in the middle of writes.
  sandbox = await startSandbox({ apiKeys: [KEY], faults: { latencyMs: 4 } });
  dir = mkdtempSync(join(tmpdir(), 'offersync-crash-'));
  for (const sub of ['accounts', 'items', 'top-ups']) mkdirSync(join(dir, 'catalogue', sub), { recursive: true });
  writeFileSync(
    join(dir, 'offersync.yaml'),
    `baseUrl: ${sandbox.url}\ncatalogue:\n  dir: ./catalogue\nstate:\n  path: ./state/state.db\nrateLimit:\n  ` +
      `ratePerSec: 400\n  burst: 50\nbulk:\n  removeSize: 4\n  topUpUpdateSize: 4\n`,
  );
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('crash safety', () => {
  it(`survives ${ROUNDS} SIGKILLs at random moments without a duplicate or a forgotten offer`, async () => {
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let killed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      writeCatalogue(round % 2);
      const r = await runCli(150 + Math.floor(random() * 900));
      if (r.signal === 'SIGKILL') killed++;
      else expect(r.code, r.stderr).toBeLessThanOrEqual(1);
    }
    expect(killed).toBeGreaterThan(ROUNDS / 4); // the loop really did interrupt runs

    writeCatalogue(1);
    const last = await runCli(null);
    expect(last.code, last.stderr).toBe(0);

    const dump = sandbox.dump();
    for (const rows of [dump.accounts, dump.items, dump.topUps]) {
      const ids = rows.map((r) => r.external_id);
      expect(new Set(ids).size, 'an external_id appears twice').toBe(ids.length);
    }
    const live = (rows: Record<string, unknown>[]) =>
      rows
        .filter((r) => r.status !== 'archived')
        .map((r) => String(r.external_id))
        .sort();
    expect(live(dump.accounts)).toEqual(
      Array.from({ length: 30 }, (_, i) => i)
        .filter((i) => i % 6 !== 0)
        .map((i) => `acc-${i}`)
        .sort(),
    );
    expect(live(dump.items)).toHaveLength(15);
    expect(live(dump.topUps)).toEqual(
      Array.from({ length: 15 }, (_, i) => i)
        .filter((i) => i % 5 !== 0)
        .map((i) => `tu-${i}`)
        .sort(),
    );
    for (const a of dump.accounts.filter((r) => r.status !== 'archived')) {
      const i = Number(String(a.external_id).slice(4));
      expect(a.price).toBe(1000 + i + 7);
    }

    const store = await openStateStore(join(dir, 'state', 'state.db'));
    try {
      const byKey = new Map((await store.listOffers()).map((o) => [`${o.kind}:${o.externalId}`, o]));
      for (const [kind, rows] of [
        ['account', dump.accounts],
        ['item', dump.items],
        ['topup', dump.topUps],
      ] as const) {
        for (const r of rows)
          expect(
            byKey.get(`${kind}:${String(r.external_id)}`)?.remoteId,
            `${kind} ${String(r.external_id)} not mapped`,
          ).toBe(r.id);
      }
      expect(await store.journalUnfinished()).toEqual([]);
    } finally {
      store.close();
    }
  }, 240_000);
});
