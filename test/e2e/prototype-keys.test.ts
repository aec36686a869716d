// Keys that would write to a prototype ('__proto__', 'constructor', 'prototype'), in a catalogue against the
// sandbox, through the commands in this process (so that Object.prototype can be looked at): an error at the
// key's file:line:column, nothing archived, every other offer as it was.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CapturedRun, mainCaptured } from '../support/captured-io.ts';
import { startDaemon } from '../support/daemon-process.ts';
import { createHarness, type Harness, harnessCliConfig, TEST_KEY } from '../support/harness.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/until.ts';

let h: Harness | undefined;
let cliConfig: { env: NodeJS.ProcessEnv; cwd: string } | undefined;
afterEach(async () => {
  // Were a parser to write through '__proto__', the rest of this worker's tests should not inherit it.
  for (const key of ['status', 'note']) delete (Object.prototype as Record<string, unknown>)[key];
  await h?.close();
  h = undefined;
  cliConfig = undefined;
});

const cli = (argv: string[]): Promise<CapturedRun> => mainCaptured(argv, cliConfig);

const ITEMS = Array.from({ length: 40 }, (_, i) => ({ external_id: `i-${i}`, title: `Item ${i}`, price: 100 + i }));

async function listed(): Promise<Harness> {
  h = await createHarness();
  cliConfig = harnessCliConfig(h);
  h.write('items/stock.json', JSON.stringify(ITEMS));
  h.write('accounts/a.json', JSON.stringify([{ external_id: 'acc-1', title: 'Account', price: 900 }]));
  expect((await cli(['reconcile'])).code).toBe(0);
  return h;
}

const statuses = (): string[] => {
  const dump = h!.sandbox.dump();
  return [...new Set([...dump.items, ...dump.accounts].map((o) => String(o.status)))];
};

describe('keys that name a prototype', () => {
  it("a CSV column '__proto__.status' is an error at its header cell; no offer is archived", async () => {
    await listed();
    h!.write('items/evil.csv', 'external_id,title,price,__proto__.status\ne-1,Evil,100,archived\n');
    h!.sandbox.resetCounters();

    const validate = await cli(['validate', 'catalogue', '--format', 'gcc']);
    expect(validate.code).toBe(1);
    expect(validate.out).toContain(
      "catalogue/items/evil.csv:1:25: error: __proto__.status: column '__proto__.status': '__proto__' cannot be a " +
        'field name',
    );

    const plan = await cli(['plan', '--json']);
    const json = JSON.parse(plan.out) as { guard: { archives: number }; actions: { type: string }[] };
    expect(json.guard.archives).toBe(0);
    expect(json.actions.filter((a) => a.type === 'update' || a.type === 'archive')).toEqual([]);

    const run = await cli(['reconcile']);
    expect(run.code).toBe(1);
    expect(run.err + run.out).toMatch(/items\/evil\.csv:1:25/);
    expect(statuses()).toEqual(['listed']);
    // The file is quarantined: nothing of it is sent, not even a create from its other columns.
    expect(h!.sandbox.dump().items.map((o) => o.external_id)).not.toContain('e-1');
    expect(h!.sandbox.counters().writes).toBe(0);
    expect(Object.hasOwn(Object.prototype, 'status')).toBe(false);
    expect(({} as { status?: unknown }).status).toBeUndefined();
  });

  it("'__proto__.hasOwnProperty' and '__proto__.note' columns are refused and the commands go on", async () => {
    await listed();
    h!.write('items/evil.csv', 'external_id,title,price,__proto__.hasOwnProperty,__proto__.note\ne-1,E,1,x,y\n');
    const run = await cli(['reconcile']);
    expect(run.err + run.out).toMatch(/items\/evil\.csv:1:25/);
    expect(run.err + run.out).toMatch(/items\/evil\.csv:1:50/);
    expect(typeof Object.prototype.hasOwnProperty).toBe('function');
    expect(Object.hasOwn(Object.prototype, 'note')).toBe(false);
    expect(statuses()).toEqual(['listed']);
  });

  it('JSON and YAML records holding such a key are invalid offers, with the key located; the rest load', async () => {
    await listed();
    h!.write(
      'accounts/a.json',
      '[{"external_id":"acc-1","title":"Account","price":900,"__proto__":{"status":"archived"}}]',
    );
    h!.write('items/more.yaml', '- external_id: y-1\n  title: Y\n  price: 5\n  constructor: x\n');
    const validate = await cli(['validate', 'catalogue', '--format', 'gcc']);
    expect(validate.out).toContain("catalogue/accounts/a.json:1:67: error: [acc-1] __proto__: '__proto__' cannot be");
    expect(validate.out).toContain("catalogue/items/more.yaml:4:16: error: [y-1] constructor: 'constructor' cannot");
    const run = await cli(['reconcile']);
    expect(run.code).toBe(1);
    expect(statuses()).toEqual(['listed']);
    expect(Object.hasOwn(Object.prototype, 'status')).toBe(false);
  });
});

describe('keys that name a prototype, in a watched catalogue', () => {
  it("a '__proto__.note' column added while the daemon runs is reported; the daemon stays up", async () => {
    h = await createHarness();
    const port = await freePort();
    mkdirSync(join(h.catalogueDir, 'items'), { recursive: true });
    h.write('items/stock.json', JSON.stringify(ITEMS.slice(0, 3)));
    writeFileSync(
      join(h.dir, 'daemon.yaml'),
      `baseUrl: ${h.sandbox.url}
catalogue:
  dir: ./catalogue
state:
  path: ./state/daemon.db
` +
        `daemon:
  debounceMs: 100
  healthHost: 127.0.0.1
  healthPort: ${port}
`,
    );
    const daemon = startDaemon(
      join(h.dir, 'daemon.yaml'),
      { PATH: process.env.PATH, OFFERSYNC_API_KEY: TEST_KEY, OFFERSYNC_LOG_LEVEL: 'info' },
      { cwd: h.dir },
    );
    let exited: number | null | undefined;
    void daemon.exited.then((code) => {
      exited = code;
    });
    const metrics = async (): Promise<string | undefined> => {
      const r = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => null);
      return r?.status === 200 ? r.text() : undefined;
    };
    try {
      await until(
        'the first run',
        async () => ((await metrics())?.includes('trigger="start"') ? true : undefined),
        20_000,
      );
      h.write('items/evil.csv', 'external_id,title,price,__proto__.note\ne-1,Evil,100,hello\n');
      const after = await until(
        'a run on the changed file',
        async () => {
          const m = await metrics();
          return m?.includes('trigger="files"') ? m : undefined;
        },
        20_000,
      );
      expect(after).not.toMatch(/note=/);
      expect(exited, daemon.stderr()).toBeUndefined();
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      // The file's error fails the run's file (partial); nothing else.
      expect(after).toMatch(/offersync_runs_total\{seller="default",outcome="partial",trigger="files"/);
      expect(h.sandbox.dump().items.every((o) => o.status === 'listed')).toBe(true);
    } finally {
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited, daemon.stderr()).toBe(0);
    }
  });
});
