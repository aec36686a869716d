// The main flows through the CLI against a sandbox that answers as the marketplace's real server does
// (sandbox/real-server.ts: every real-server switch on), beside the same flows against the document's sandbox:
// a first sync, a second run that writes nothing, edits and archives that land, a plan with nothing pending, and
// a pulled catalogue that a fresh state db adopts with no write.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realServerOptions } from '../../src/sandbox/real-server.ts';
import { type RunningSandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { runMain } from '../support/captured-io.ts';
import { type CliRun, cliEnv } from '../support/cli.ts';

const KEY = 'real-server-e2e-key-2026';
/** Each case runs the CLI a few times (in this process): generous, for a loaded machine; a bound, not a timing. */
const CASE_MS = 180_000;

interface Shop {
  readonly accounts: readonly Record<string, unknown>[];
  readonly items: readonly Record<string, unknown>[];
  readonly topUps: readonly Record<string, unknown>[];
}

/** Numeric external_ids among them, as sellers who key offers by SKU number write them. */
function shop(itemPrice: (i: number) => number, items = 6): Shop {
  return {
    accounts: Array.from({ length: 3 }, (_, i) => ({
      external_id: `acc-${i}`,
      title: `EUW Gold account ${i}`,
      price: 2499 + i,
      game: 'league-of-legends',
      server: 'euw',
      rank: 'Gold II',
      level: 30 + i,
      credentials: { login: `login-${i}`, password: `pw-${i}-secret` },
    })),
    items: Array.from({ length: items }, (_, i) => ({
      external_id: String(i + 1),
      title: `Skin code ${i}`,
      price: itemPrice(i),
      stock: 5,
      type: 'skin',
      game: 'league-of-legends',
    })),
    topUps: Array.from({ length: 4 }, (_, i) => ({
      external_id: `tu-${i}`,
      offer_title: `${(i + 1) * 100} gems`,
      price: 499 + i,
      game: 'genshin-impact',
      currency: 'EUR',
      status: 'listed',
    })),
  };
}

describe.each([
  ['the API document', (o: SandboxOptions) => o],
  ['the real server', realServerOptions],
])('the main flows against %s', (_name, options) => {
  let sandbox: RunningSandbox;
  let dir = '';
  const run = (args: string[], catalogue = join(dir, 'catalogue'), state = join(dir, 'state', 'state.db')) =>
    runMain(args, {
      cwd: dir,
      env: cliEnv(
        { dir, baseUrl: sandbox.url, apiKey: KEY, logLevel: 'warn' },
        { OFFERSYNC_CATALOGUE_DIR: catalogue, OFFERSYNC_STATE_DB: state },
      ),
    });
  const write = (s: Shop) => {
    for (const [sub, offers] of [
      ['accounts', s.accounts],
      ['items', s.items],
      ['top-ups', s.topUps],
    ] as const) {
      mkdirSync(join(dir, 'catalogue', sub), { recursive: true });
      writeFileSync(join(dir, 'catalogue', sub, 'offers.json'), JSON.stringify(offers));
    }
  };
  const converged = (r: CliRun) => {
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('Converged');
  };

  beforeAll(async () => {
    sandbox = await startSandbox(options({ apiKeys: [KEY] }));
    dir = mkdtempSync(join(tmpdir(), 'offersync-real-'));
  });
  afterAll(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, CASE_MS);

  it(
    'a first sync creates every offer, and a second run writes nothing',
    async () => {
      write(shop((i) => 100 + i));
      converged(await run(['reconcile']));
      const dump = sandbox.dump();
      expect(dump.accounts).toHaveLength(3);
      expect(dump.items).toHaveLength(6);
      expect(dump.topUps).toHaveLength(4);
      sandbox.resetCounters();
      converged(await run(['reconcile']));
      expect(sandbox.counters().writes).toBe(0);
      const plan = await run(['plan']);
      expect(plan.code, plan.stdout).toBe(0);
      expect(plan.stdout).toContain('No changes');
    },
    CASE_MS,
  );

  it(
    'reprices every item, and each price lands on its own offer',
    async () => {
      write(shop((i) => 200 + i));
      converged(await run(['reconcile']));
      const prices = sandbox
        .dump()
        .items.map((i) => [String(i.external_id), Number(i.price)])
        .sort();
      expect(prices).toEqual(Array.from({ length: 6 }, (_, i) => [String(i + 1), 200 + i]).sort());
      sandbox.resetCounters();
      converged(await run(['reconcile']));
      expect(sandbox.counters().writes).toBe(0);
    },
    CASE_MS,
  );

  it(
    'archives an item removed from the catalogue, and only that one',
    async () => {
      write(shop((i) => 200 + i, 5));
      converged(await run(['reconcile']));
      const status = Object.fromEntries(sandbox.dump().items.map((i) => [String(i.external_id), i.status]));
      expect(status).toEqual({ 1: 'listed', 2: 'listed', 3: 'listed', 4: 'listed', 5: 'listed', 6: 'archived' });
    },
    CASE_MS,
  );

  it(
    'a pulled catalogue is adopted by a fresh state db with no write',
    async () => {
      const pulled = join(dir, 'pulled');
      const pull = await run(['pull', '--out', pulled, '--with-credentials']);
      expect(pull.code, `${pull.stdout}\n${pull.stderr}`).toBe(0);
      sandbox.resetCounters();
      const fresh = await run(['reconcile'], pulled, join(dir, 'fresh', 'state.db'));
      converged(fresh);
      expect(sandbox.counters().writes).toBe(0);
    },
    CASE_MS,
  );
});
