// Shared setup for reconcile tests: a real sandbox on a free loopback port, a temporary catalogue and state
// db, and the real services (client, queue, state, catalogue) wired as the CLI wires them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, type TestContext } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/sandbox-server.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Config } from '../../src/config/config.ts';
import { silentLogger, type Logger } from '../../src/log/logger.ts';
import { openServices } from '../../src/cli/services.ts';
import { makePng } from './png.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { reconcile, type ReconcileOptions, type ReconcileResult } from '../../src/sync/reconciler.ts';

export const TEST_KEY = 'test-key-0123456789';

export interface Harness {
  readonly sandbox: RunningSandbox;
  readonly dir: string;
  readonly catalogueDir: string;
  readonly statePath: string;
  config: Config;
  write(rel: string, content: string | Uint8Array): void;
  remove(rel: string): void;
  /** The clock of backoffs and re-probes for the runs (default the system clock). */
  now?: () => number;
  /** `wrap` swaps in a client that misbehaves in a way the sandbox cannot (a fault on one call). */
  reconcile(
    opts?: Partial<ReconcileOptions>,
    logger?: Logger,
    wrap?: (client: MarketplaceClient) => MarketplaceClient,
  ): Promise<ReconcileResult>;
  /** Writes done by the sandbox since the last resetCounters(). */
  writes(): number;
  close(): Promise<void>;
}

export async function createHarness(
  opts: { sandbox?: SandboxOptions; config?: Record<string, unknown> } = {},
): Promise<Harness> {
  const sandbox = await startSandbox({ apiKeys: [TEST_KEY], ...opts.sandbox });
  const dir = mkdtempSync(join(tmpdir(), 'offersync-test-'));
  const catalogueDir = join(dir, 'catalogue');
  for (const sub of ['accounts', 'items', 'top-ups', 'images']) mkdirSync(join(catalogueDir, sub), { recursive: true });
  const statePath = join(dir, 'state', 'state.db');
  const base = loadConfig({
    env: {},
    cwd: dir,
    flags: { catalogue: catalogueDir, state: statePath, baseUrl: sandbox.url },
    overrides: { rateLimit: { ratePerSec: 500, burst: 500, maxAttempts: 8 }, log: { level: 'silent' }, ...opts.config },
  });
  const h: Harness = {
    sandbox,
    dir,
    catalogueDir,
    statePath,
    config: { ...base, apiKey: TEST_KEY },
    write(rel, content) {
      const path = join(catalogueDir, rel);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    },
    remove(rel) {
      rmSync(join(catalogueDir, rel), { force: true });
    },
    async reconcile(o = {}, logger = silentLogger, wrap) {
      const services = await openServices(h.config, { logger });
      try {
        const deps = {
          ...services.reconcileDeps,
          ...(wrap ? { client: wrap(services.client) } : {}),
          ...(h.now ? { now: h.now } : {}),
        };
        return await reconcile(deps, { command: 'test', dryRun: false, ...o });
      } finally {
        await services.close();
      }
    },
    writes() {
      return sandbox.counters().writes;
    },
    async close() {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Request counts of the sandbox as "METHOD /path-template" -> total, for compact assertions. */
/**
 * Writes h.dir/offersync.yaml, the config of commands run against h's sandbox (its catalogue and state db, a fast
 * rate limit, no log), and returns what such a command is run with: the key and that file in env, h.dir as cwd.
 */
export function harnessCliConfig(h: Harness): { env: NodeJS.ProcessEnv; cwd: string } {
  const file = join(h.dir, 'offersync.yaml');
  writeFileSync(
    file,
    `baseUrl: ${h.sandbox.url}\ncatalogue:\n  dir: ./catalogue\nstate:\n  path: ./state/state.db\n` +
      'rateLimit:\n  ratePerSec: 200\n  burst: 50\nlog:\n  level: silent\n',
  );
  return { env: { OFFERSYNC_API_KEY: TEST_KEY, OFFERSYNC_CONFIG: file }, cwd: h.dir };
}

/**
 * createHarness for a file whose tests each start their own: every harness it opened is closed after its test,
 * passed or failed, so no sandbox or temporary directory outlives the test that made it.
 */
export function harnessPerTest(): (opts?: Parameters<typeof createHarness>[0]) => Promise<Harness> {
  let opened: Harness[] = [];
  afterEach(async () => {
    const closing = opened;
    opened = [];
    for (const h of closing) await h.close();
  });
  return async (opts) => {
    const h = await createHarness(opts);
    opened.push(h);
    return h;
  };
}

/**
 * A harness closed when the test `t` ends, for tests that run at once (`describe.concurrent`): each closes its own,
 * where harnessPerTest's afterEach would close another's.
 */
export async function harnessOfTest(t: TestContext, opts?: Parameters<typeof createHarness>[0]): Promise<Harness> {
  const h = await createHarness(opts);
  t.onTestFinished(() => h.close());
  return h;
}

export function requestsByRoute(sandbox: RunningSandbox): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [route, byStatus] of Object.entries(sandbox.counters().byRoute)) {
    out[route] = Object.values(byStatus).reduce((a, b) => a + b, 0);
  }
  return out;
}

/** A valid 1x1 PNG; each shade has its own bytes, so its own sha256. */
export function tinyPng(shade = 0): Uint8Array {
  const c: [number, number, number] = [shade & 0xff, 0, 0];
  return makePng(1, 1, c, c); // a 1x1 image is all stripe: give the stripe the colour too
}
