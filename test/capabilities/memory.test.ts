// The memory the marketplace client asks mid-request, as the CLI opens it on the state db: the verdicts the
// store holds, read through the reprobe interval, and a new verdict kept at once and written through.
import { describe, expect, it } from 'vitest';
import { inMemoryCapabilities } from '../../src/capabilities/memory.ts';
import { openCapabilities } from '../../src/capabilities/open-capabilities.ts';
import { createLogger, silentLogger } from '../../src/log/logger.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';

const H = 3_600_000;

describe('openCapabilities', () => {
  it('reads what the state db learnt, asks a refusal again after the interval, writes verdicts through', async () => {
    const store = await openStateStore(':memory:', { now: () => 1000 });
    await store.setCapability('GET /items/{external_id}', false, 'an HTML page');
    await store.setCapability('GET /items?filter=', true, null);
    let now = 1000 + H - 1;
    const memory = await openCapabilities({ store, now: () => now, reprobeAfterMs: H, logger: silentLogger });
    expect(memory.usable('GET /items/{external_id}')).toBe(false);
    expect(memory.usable('GET /items?filter=')).toBe(true);
    expect(memory.usable('GET /top-ups/{external_id}')).toBeUndefined();
    now = 1000 + H;
    expect(memory.usable('GET /items/{external_id}')).toBeUndefined();

    memory.remember('GET /top-ups/{external_id}', false, 'a 405');
    // Kept at once (the client asks again within the same request), counted from now.
    expect(memory.usable('GET /top-ups/{external_id}')).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(await store.getCapability('GET /top-ups/{external_id}')).toMatchObject({ usable: false, detail: 'a 405' });
    await store.close();
  });

  it('keeps a verdict it could not save for this process, and says so', async () => {
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', destination: { write: (l: string) => void lines.push(l) } });
    const store = await openStateStore(':memory:');
    const memory = await openCapabilities({
      store: {
        listCapabilities: () => store.listCapabilities(),
        getCapability: (n) => store.getCapability(n),
        setCapability: () => Promise.reject(new Error('disk full')),
      },
      now: Date.now,
      reprobeAfterMs: H,
      logger,
    });
    memory.remember('GET /items/{external_id}', true, null);
    expect(memory.usable('GET /items/{external_id}')).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        capability: 'GET /items/{external_id}',
        err: 'disk full',
        msg: 'capability verdict not saved: probed again',
      }),
    ]);
    await store.close();
  });
});

describe('inMemoryCapabilities', () => {
  it('remembers for its own lifetime', () => {
    const memory = inMemoryCapabilities();
    expect(memory.usable('GET /items?filter=')).toBeUndefined();
    memory.remember('GET /items?filter=', false, 'ignored');
    expect(memory.usable('GET /items?filter=')).toBe(false);
  });
});
