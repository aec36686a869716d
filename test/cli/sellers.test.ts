// Many sellers in one configuration: plan, reconcile and status seller by seller (in-process, against a
// sandbox on 127.0.0.1 that knows each seller's key); one seller's failure does not stop the others.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command as plan } from '../../src/cli/plan-command.ts';
import { command as reconcile } from '../../src/cli/reconcile.ts';
import { command as status } from '../../src/cli/status.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { capturedIo } from '../support/captured-io.ts';

let sandbox: RunningSandbox;
let dir: string;
let env: Record<string, string>;

function items(seller: string, n: number, price = 100): string {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      external_id: `${seller}-item-${i}`,
      title: `${seller} item ${i}`,
      price: price + i,
      stock: 1,
      type: 'skin',
    })),
  );
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: ['key-eu', 'key-us'] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-sellers-'));
  for (const s of ['eu', 'us', 'broken']) mkdirSync(join(dir, 'cat', s, 'items'), { recursive: true });
  writeFileSync(join(dir, 'cat', 'eu', 'items', 'a.json'), items('eu', 3));
  writeFileSync(join(dir, 'cat', 'us', 'items', 'a.json'), items('us', 2));
  writeFileSync(join(dir, 'cat', 'broken', 'items', 'a.json'), items('broken', 1));
  writeFileSync(join(dir, 'eu.key'), 'key-eu\n');
  writeFileSync(
    join(dir, 'offersync.yaml'),
    [
      `baseUrl: ${sandbox.url}`,
      'state:',
      '  path: ./state/state.db',
      'rateLimit: { ratePerSec: 200, burst: 50 }',
      'log: { level: silent }',
      'sellers:',
      '  - id: eu-shop',
      '    catalogue: ./cat/eu',
      '    apiKeyFile: ./eu.key',
      '  - id: broken-shop',
      '    catalogue: ./cat/broken',
      '    apiKeyFile: ./missing.key',
      '  - id: us-shop',
      '    catalogue: ./cat/us',
      '    apiKeyEnv: KEY_US',
      '    rateLimit: { ratePerSec: 50 }',
      '',
    ].join('\n'),
  );
  env = { OFFERSYNC_CONFIG: join(dir, 'offersync.yaml'), KEY_US: 'key-us' };
});

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sellers', () => {
  it('gives each seller its own catalogue, key, state file and overrides over the shared configuration', () => {
    const config = loadConfig({ env, cwd: dir });
    expect(config.sellerConfigs.map((s) => [s.seller, s.apiKey, s.rateLimit.ratePerSec])).toEqual([
      ['eu-shop', 'key-eu', 200],
      ['broken-shop', '', 200],
      ['us-shop', 'key-us', 50],
    ]);
    expect(config.sellerConfigs[0]?.catalogue.dir).toBe(join(dir, 'cat', 'eu'));
    expect(config.sellerConfigs[2]?.state.path).toBe(join(dir, 'state', 'sellers', 'us-shop', 'state.db'));
    writeFileSync(join(dir, 'dup.yaml'), 'sellers:\n  - {id: a, catalogue: x}\n  - {id: a, catalogue: y}\n');
    expect(() => loadConfig({ env: {}, cwd: dir, flags: { config: join(dir, 'dup.yaml') } })).toThrow(/unique/);
    writeFileSync(join(dir, 'bad.yaml'), 'sellers:\n  - {id: a, catalogue: x, rateLimit: {ratePerSec: -1}}\n');
    expect(() => loadConfig({ env: {}, cwd: dir, flags: { config: join(dir, 'bad.yaml') } })).toThrow(
      /seller 'a' \(sellers\[0\]\):\n {2}- 'rateLimit.ratePerSec'/,
    );
  });

  it('reconciles each seller, a report each; one without its key fails alone (exit 2), others converge', async () => {
    const c = capturedIo({ env, cwd: dir });
    expect(await reconcile.run([], c)).toBe(2);
    expect(c.out()).toMatch(/== seller eu-shop\n[\s\S]*== seller broken-shop\n[\s\S]*== seller us-shop\n/);
    expect(c.err()).toMatch(/seller broken-shop: no API key: its apiKeyFile must name a readable file/);
    const titles = sandbox
      .dump()
      .items.map((o) => String(o.external_id))
      .sort();
    expect(titles).toEqual(['eu-item-0', 'eu-item-1', 'eu-item-2', 'us-item-0', 'us-item-1']);
  });

  it('--seller runs one seller: plan shows no change for it, and a change only in its own catalogue', async () => {
    writeFileSync(join(dir, 'cat', 'us', 'items', 'a.json'), items('us', 2, 900));
    const eu = capturedIo({ env, cwd: dir });
    expect(await plan.run(['--seller', 'eu-shop'], eu)).toBe(0);
    expect(eu.out()).not.toContain('== seller');
    const us = capturedIo({ env, cwd: dir });
    expect(await plan.run(['--seller', 'us-shop', '--json'], us)).toBe(3);
    expect(JSON.parse(us.out())).toBeTypeOf('object');
    const none = capturedIo({ env, cwd: dir });
    expect(await plan.run(['--seller', 'nope'], none)).toBe(2);
    expect(none.err()).toMatch(/no seller 'nope': the configuration has eu-shop, broken-shop, us-shop/);
  });

  it('status shows each seller from its own state', async () => {
    const c = capturedIo({ env, cwd: dir });
    expect(await status.run(['--json'], c)).toBe(0);
    const doc = JSON.parse(c.out()) as {
      sellers: { seller: string; offers: Record<string, Record<string, number>> }[];
    };
    expect(doc.sellers.map((s) => [s.seller, s.offers.item?.listed ?? 0])).toEqual([
      ['eu-shop', 3],
      ['broken-shop', 0],
      ['us-shop', 2],
    ]);
  });
});
