// The marketplace's real limiter (its site's fixed window per client address, a ban after it, no rate headers)
// against the real client, queue and state db, on a scaled sandbox window: 80 requests per 2 s, a 3 s ban. Each
// `process` is a fresh set of window budgets, as a new offersync process has; sellers of one process share one.
import { describe, expect, it } from 'vitest';
import { openServices, type Services } from '../../src/cli/services.ts';
import { windowScope } from '../../src/cli/window-scope.ts';
import type { Config } from '../../src/config/config.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { resolveOptions } from '../../src/marketplace/marketplace-client-options.ts';
import { loadLearntWindow } from '../../src/queue/learnt-window.ts';
import { WindowBudgets } from '../../src/queue/window-budgets.ts';
import type { SandboxOptions } from '../../src/sandbox/sandbox-options.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { reconcile } from '../../src/sync/reconciler.ts';
import { type Harness, harnessOfTest, TEST_KEY } from '../support/harness.ts';
import { captureLog } from '../support/log-capture.ts';

const WINDOW = { requests: 80, seconds: 2, banSeconds: 3 };
const sandboxWith = (extra: Partial<SandboxOptions> = {}): SandboxOptions => ({
  rateLimit: { window: WINDOW, headers: 'none', userAgentRules: true },
  ...extra,
});
const rateLimit = { ratePerSec: 500, burst: 50, maxAttempts: 8, learnWindowSeconds: 2 };

function accounts(n: number, price: number): string {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({ external_id: `acc-${i}`, title: `Account ${i}`, price })),
  );
}

/** One run of `config`, in the process whose window budgets are `budgets`. */
async function run(config: Config, budgets: WindowBudgets) {
  const services = await openServices(config, { logger: silentLogger, windowBudgets: budgets });
  try {
    return await reconcile(services.reconcileDeps, { command: 'test', dryRun: false });
  } finally {
    await services.close();
  }
}

async function learntWindow(h: Harness) {
  const store = await openStateStore(h.statePath);
  try {
    return await loadLearntWindow(
      { getMeta: (k) => store.getSharedMeta(k), setMeta: (k, v) => store.setSharedMeta(k, v) },
      windowScope(h.config),
    );
  } finally {
    await store.close();
  }
}

/**
 * Cheap list reads through `config`'s queue until the sandbox's window is spent and its 429 teaches offersync the
 * window: bounded rounds, as a slow machine may spread one round over two windows. `stopAtBan`: the process ends
 * at that 429, as one killed then would.
 */
async function teach(config: Config, budgets: WindowBudgets, stopAtBan = false): Promise<void> {
  let learnt = false;
  const services: Services = await openServices(config, {
    logger: silentLogger,
    windowBudgets: budgets,
    observe: {
      onQueueEvent: (e) => {
        if (e.type !== 'window-learnt') return;
        learnt = true;
        if (stopAtBan) services.queue.close();
      },
    },
  });
  try {
    for (let round = 0; round < 10 && !learnt; round++)
      await Promise.allSettled(
        Array.from({ length: 100 }, async () => {
          for await (const _ of services.client.accounts.list()) break;
        }),
      );
  } finally {
    await services.close();
  }
  expect(learnt).toBe(true);
}

// Each test waits on its sandbox's window and ban, most of it idle: they run at once.
describe.concurrent('the marketplace window, learnt from its first 429', () => {
  it('learns the window from the requests before it, then 150 creates and 150 updates meet no other 429', async (t) => {
    const h = await harnessOfTest(t, { sandbox: sandboxWith(), config: { rateLimit } });
    const process = new WindowBudgets();
    await teach(h.config, process);
    const taught = h.sandbox.counters().rateLimited;
    expect(taught).toBeGreaterThanOrEqual(1); // the one episode (the requests already on the wire included)
    const learnt = await learntWindow(h);
    expect(learnt.limit?.seconds).toBe(2);
    // What the sandbox let through in its window, never more (fewer when requests crossed its start).
    expect(learnt.limit?.requests).toBeLessThanOrEqual(WINDOW.requests);
    expect(learnt.limit?.requests).toBeGreaterThanOrEqual(WINDOW.requests / 2);
    h.write('accounts/a.json', accounts(150, 900));
    const first = await run(h.config, process);
    expect(first.report.counts.account?.created).toBe(150);
    h.write('accounts/a.json', accounts(150, 950));
    const second = await run(h.config, process);
    expect(second.report.counts.account?.updated).toBe(150);
    expect(h.sandbox.counters().rateLimited).toBe(taught);
  });

  it('a process started during the ban waits it out, and says why', async (t) => {
    const h = await harnessOfTest(t, {
      sandbox: sandboxWith({ rateLimit: { window: { ...WINDOW, banSeconds: 5 }, headers: 'none' } }),
      config: { rateLimit },
    });
    await teach(h.config, new WindowBudgets(), true);
    const taught = h.sandbox.counters().rateLimited;
    expect((await learntWindow(h)).bannedUntil).toBeGreaterThan(Date.now()); // the ban still holds
    h.write('accounts/a.json', accounts(100, 900));
    const log = captureLog('warn');
    const second = await openServices(h.config, { logger: log.logger, windowBudgets: new WindowBudgets() });
    try {
      const r = await reconcile(second.reconcileDeps, { command: 'test', dryRun: false });
      expect(r.report.counts.account?.created).toBe(100);
    } finally {
      await second.close();
    }
    expect(h.sandbox.counters().rateLimited).toBe(taught);
    expect(
      log.find(
        'the marketplace banned this address after a 429 (its website too); nothing is sent before the ban ends',
      ),
    ).toHaveLength(1);
  });

  it('a second process on the same state db, started right after the first, sends no 429 at all', async (t) => {
    const h = await harnessOfTest(t, { sandbox: sandboxWith(), config: { rateLimit } });
    await teach(h.config, new WindowBudgets()); // ends having spent a window after the ban
    const taught = h.sandbox.counters().rateLimited;
    h.write('accounts/a.json', accounts(150, 900));
    const again = await run(h.config, new WindowBudgets());
    expect(again.report.counts.account?.created).toBe(150);
    expect(h.sandbox.counters().rateLimited).toBe(taught);
  });

  it('two sellers on one address share one window', async (t) => {
    const keyB = 'test-key-seller-b-0123';
    const a = await harnessOfTest(t, {
      sandbox: sandboxWith({ sellerPerKey: true, apiKeys: [TEST_KEY, keyB] }),
      config: { rateLimit },
    });
    // b's own harness for its catalogue and state db: it reaches a's sandbox.
    const b = await harnessOfTest(t, { config: { rateLimit } });
    const bConfig = { ...b.config, baseUrl: a.sandbox.url, apiKey: keyB };
    const process = new WindowBudgets();
    await teach(a.config, process);
    const taught = a.sandbox.counters().rateLimited;
    a.write('accounts/a.json', accounts(100, 950));
    b.write('accounts/b.json', accounts(100, 700));
    // Both at once from one process: each alone would send 77 a window, together 154 into a window of 80.
    const [ra, rb] = await Promise.all([run(a.config, process), run(bConfig, process)]);
    expect([ra.report.counts.account?.created, rb.report.counts.account?.created]).toEqual([100, 100]);
    expect(a.sandbox.counters().rateLimited).toBe(taught);
  });

  it('a window set by hand holds from the first request: not even one 429', async (t) => {
    const byHand = { ...rateLimit, window: { requests: 80, seconds: 2 } };
    const h = await harnessOfTest(t, { sandbox: sandboxWith(), config: { rateLimit: byHand } });
    h.write('accounts/a.json', accounts(100, 900));
    const r = await run(h.config, new WindowBudgets());
    expect(r.report.counts.account?.created).toBe(100);
    expect(h.sandbox.counters().rateLimited).toBe(0);
    const bad = { env: {}, cwd: h.dir, overrides: { rateLimit: { window: { requests: 0, seconds: 60 } } } };
    expect(() => loadConfig(bad)).toThrow(/rateLimit\.window\.requests/);
  });

  it('never sends an empty or a library User-Agent', async (t) => {
    const h = await harnessOfTest(t, {
      sandbox: { rateLimit: { window: { requests: 1000, seconds: 60, banSeconds: 300 }, userAgentRules: true } },
      config: { rateLimit },
    });
    h.write('accounts/a.json', accounts(12, 900)); // more than the 5 a library's User-Agent gets
    const r = await run(h.config, new WindowBudgets());
    expect(r.report.counts.account?.created).toBe(12);
    expect(h.sandbox.counters().rateLimited).toBe(0);
    const base = { baseUrl: 'https://market.example', apiKey: 'k-123456' };
    for (const userAgent of ['', '  ', 'axios/1.7.2', 'node-fetch/3', 'MyShop curl/8.0'])
      expect(() => resolveOptions({ ...base, userAgent })).toThrow(/marketplace client option userAgent/);
    expect(resolveOptions({ ...base, userAgent: 'offersync/9.9.9 (shop-42)' }).userAgent).toBe(
      'offersync/9.9.9 (shop-42)',
    );
  });
});
