import { afterEach, describe, expect, it } from 'vitest';
import { runReconcile } from '../../src/cli/run-reconcile.ts';
import type { Config } from '../../src/config/config.ts';
import { capturedIo } from '../support/captured-io.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { receiver } from './support/webhook-receiver.ts';

const PASSWORD = 'pw-correct-horse-battery';

const io = () => capturedIo({ cwd: '/' });

function withNotify(h: Harness, notify: Partial<Config['notify']>, extra: Partial<Config> = {}): Config {
  return { ...h.config, ...extra, notify: { ...h.config.notify, seller: 'test-shop', ...notify } };
}

const reconcileOnce = (config: Config, c = io()) =>
  runReconcile(c, config, { command: 'reconcile', dryRun: false, json: false, allowMassArchive: false, quiet: true });

let h: Harness | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await h?.close();
  h = undefined;
});

describe('webhook notifications', () => {
  it('a failure with the marketplace message, then a sale, each once; a 5xx is retried; no credential', async () => {
    h = await createHarness();
    const hook = await receiver((n, res) => {
      if (n === 1) {
        res.writeHead(503).end(); // the first delivery fails once
        return true;
      }
    });
    closers.push(hook.close);
    const config = withNotify(h, { webhooks: [hook.url] });
    h.write(
      'items/stock.json',
      JSON.stringify([
        { external_id: 'gold-1', title: 'Gold 1000', price: 2499 },
        { external_id: 'odd-1', title: 'Odd status', price: 100, status: 'refunded' },
      ]),
    );
    h.write(
      'accounts/a.json',
      JSON.stringify([{ external_id: 'acc-1', title: 'Main', price: 5000, credentials: { password: PASSWORD } }]),
    );
    expect(await reconcileOnce(config)).toBe(1);
    expect(hook.got.map((g) => [g.body.event, g.body.kind, g.body.external_id, g.body.title])).toEqual([
      ['failed', 'item', 'odd-1', 'Odd status'],
    ]);
    expect(hook.attempts()).toBe(2);
    const failed = hook.got[0]!.body;
    expect(failed).toMatchObject({ seller: 'test-shop', run_id: expect.any(String), at: expect.any(String) });
    expect(failed.message).toMatch(/422 validation failed \(fields: status\): The selected status is invalid/);
    expect(failed.text).toMatch(/^offersync test-shop: item odd-1 \(Odd status\) failed: /);

    // A second run tells nothing new: the failure is the same.
    expect(await reconcileOnce(config)).toBe(1);
    expect(hook.got).toHaveLength(1);

    // A sale is told once, with the title from the catalogue.
    h.sandbox.setStatus('items', 'gold-1', 'sold');
    await reconcileOnce(config);
    await reconcileOnce(config);
    expect(hook.got.map((g) => [g.body.event, g.body.external_id, g.body.title, g.body.message])).toEqual([
      ['failed', 'odd-1', 'Odd status', failed.message],
      ['sold', 'gold-1', 'Gold 1000', 'the marketplace marks it sold'],
    ]);
    for (const g of hook.got) {
      expect(g.raw).not.toContain(PASSWORD);
      expect(g.raw).not.toContain(h.config.apiKey);
    }
  });

  it('a guard stop and an unreadable marketplace; per-URL and global event switches', async () => {
    h = await createHarness();
    const all = await receiver();
    const soldOnly = await receiver();
    const noGuard = await receiver();
    closers.push(all.close, soldOnly.close, noGuard.close);
    const items = Array.from({ length: 30 }, (_, i) => ({ external_id: `it-${i}`, title: `Item ${i}`, price: 100 }));
    h.write('items/stock.json', JSON.stringify(items));
    const config = withNotify(h, {
      webhooks: [all.url, { url: soldOnly.url, events: ['sold'] }],
    });
    expect(await reconcileOnce(config)).toBe(0);
    h.write('items/stock.json', '[]');
    expect(await reconcileOnce(config)).toBe(1); // 30 archives > the guard's 25
    expect(await reconcileOnce({ ...config, apiKey: 'wrong-key-0000' })).toBe(1);
    expect(all.got.map((g) => g.body.event)).toEqual(['guard', 'unreadable']);
    expect(all.got[0]!.body.message).toMatch(/would archive 30/);
    expect(all.got[1]!.body).toMatchObject({ seller: 'test-shop', message: expect.stringMatching(/nothing was sent/) });
    expect(all.got[1]!.raw).not.toContain('wrong-key-0000');
    expect(soldOnly.got).toEqual([]);

    const off = withNotify(h, { webhooks: [noGuard.url], events: { ...h.config.notify.events, guard: false } });
    expect(await reconcileOnce(off)).toBe(1);
    expect(noGuard.got).toEqual([]);
  });

  it('a run never waits for a webhook: the summary is out while the receiver still holds the request', async () => {
    h = await createHarness();
    let release: (() => void) | undefined;
    const slow = await receiver((_n, res) => {
      release = () => res.writeHead(200).end();
      return true;
    });
    closers.push(slow.close);
    h.write('items/stock.json', JSON.stringify([{ external_id: 'x-1', title: 'X', price: 1, status: 'refunded' }]));
    const c = io();
    const run = runReconcile(c, withNotify(h, { webhooks: [slow.url] }), {
      command: 'reconcile',
      dryRun: false,
      json: false,
      allowMassArchive: false,
    });
    await expect.poll(() => slow.attempts(), { timeout: 20_000 }).toBe(1);
    expect(c.out()).toMatch(/x-1/); // the summary was printed before the webhook answered
    release!();
    expect(await run).toBe(1);
  });
});
