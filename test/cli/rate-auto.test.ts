// ratePerSec: auto against the sandbox: an advertised limit is taken from the first answer, in
// either header family, and the rate reached is remembered in the state db for the next run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServices } from '../../src/cli/services.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/sandbox-server.ts';

const KEY = 'rate-auto-key';
let sandbox: RunningSandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-rate-auto-'));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(state: string) {
  const base = loadConfig({
    env: {},
    cwd: dir,
    flags: { catalogue: dir, state: join(dir, state), baseUrl: sandbox.url },
    overrides: { log: { level: 'silent' } },
  });
  return await openServices({ ...base, apiKey: KEY }, { logger: silentLogger });
}

async function onePage(s: Awaited<ReturnType<typeof open>>): Promise<void> {
  for await (const _ of s.client.items.list()) break;
}

describe('ratePerSec: auto (the default)', () => {
  it.each(['x-ratelimit', 'ietf'] as const)('takes the limit the marketplace advertises (%s)', async (headers) => {
    sandbox.setRateLimit({ ratePerSec: 50, burst: 10, headers });
    const s = await open(`${headers}.db`);
    try {
      expect(s.queue.stats().currentRate).toBe(5);
      await onePage(s);
      expect(s.queue.stats()).toMatchObject({ advertisedRate: 50, currentRate: 50 });
    } finally {
      await s.close();
    }
    // The next run on this state db starts at the rate learnt.
    const again = await open(`${headers}.db`);
    expect(again.queue.stats().currentRate).toBe(50);
    await again.close();
  });

  it('starts at the safe rate when nothing is advertised, and does not climb without work', async () => {
    sandbox.setRateLimit({ ratePerSec: 50, burst: 10, headers: 'none' });
    const s = await open('none.db');
    try {
      await onePage(s);
      expect(s.queue.stats()).toMatchObject({ advertisedRate: null, currentRate: 5 });
    } finally {
      await s.close();
    }
  });
});
