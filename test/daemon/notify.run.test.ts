// Webhook notifications (notify.webhooks) from real runs against the sandbox, received on 127.0.0.1: a failure
// with the marketplace's message, a sale, a guard stop and an unreadable marketplace, each told once; retried
// after a 5xx; never a credential in a body; a run never waits for a slow webhook.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/command.ts';
import { runReconcile } from '../../src/cli/run-reconcile.ts';
import type { Config } from '../../src/config/config.ts';
import { notificationsOfRun, notificationText, NOTHING_TOLD } from '../../src/daemon/notification.ts';
import { redactUrl, WebhookNotifier, webhookBody } from '../../src/daemon/webhook-notifier.ts';
import type { RunReport } from '../../src/sync/run-report.ts';
import { createHarness, type Harness } from '../support/harness.ts';

const PASSWORD = 'pw-correct-horse-battery';

interface Received {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly raw: string;
}

/** A webhook receiver on 127.0.0.1; `answer` chooses each response (default 200). */
async function receiver(answer: (n: number, res: ServerResponse) => boolean | undefined = () => undefined): Promise<{
  url: string;
  got: Received[];
  attempts: () => number;
  close(): Promise<void>;
}> {
  const got: Received[] = [];
  let attempts = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      attempts++;
      if (answer(attempts, res) === true) return; // answered (or held) by the test
      got.push({ path: req.url ?? '', body: JSON.parse(raw) as Record<string, unknown>, raw });
      res.writeHead(200).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    attempts: () => attempts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function io(): CliIO & { out(): string } {
  let out = '';
  const write = (s: string): boolean => {
    out += s;
    return true;
  };
  const sink = { write, isTTY: false } as unknown as CliIO['stdout'];
  return {
    stdout: sink,
    stderr: { write: () => true } as unknown as CliIO['stderr'],
    env: {},
    cwd: '/',
    out: () => out,
  };
}

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

describe('webhook bodies and targets', () => {
  const n = {
    event: 'sold' as const,
    seller: 'shop',
    kind: 'item' as const,
    external_id: 'g-1',
    title: 'Gold',
    message: 'the marketplace marks it sold',
    at: '2026-01-01T00:00:00.000Z',
  };

  it('Telegram gets chat_id and text; Discord gets content; logs show only the host', () => {
    const tg = 'https://api.telegram.org/bot123456:SECRET-TOKEN/sendMessage?chat_id=-1001';
    expect(webhookBody(tg, n)).toMatchObject({
      chat_id: '-1001',
      text: 'offersync shop: item g-1 (Gold) sold: the marketplace marks it sold',
    });
    expect(webhookBody('https://discord.com/api/webhooks/1/abc', n)).toMatchObject({ content: expect.any(String) });
    expect(redactUrl(tg)).toBe('https://api.telegram.org/…');
  });

  it('a sale of units is told with its quantity, once per run that saw it', () => {
    const report: RunReport = {
      runId: 'r',
      outcome: 'converged',
      outcomes: [],
      counts: {},
      requests: 0,
      durationMs: 0,
      messages: [],
      sales: [
        {
          kind: 'item',
          externalId: 'gold-1',
          title: 'Gold 1000',
          price: 2499,
          currency: null,
          quantity: 2,
          remoteId: 7,
          soldCount: 2,
        },
      ],
    };
    const { notifications } = notificationsOfRun(report, undefined, 'shop', NOTHING_TOLD, new Date(0));
    expect(notifications).toEqual([
      {
        event: 'sold',
        seller: 'shop',
        kind: 'item',
        external_id: 'gold-1',
        title: 'Gold 1000',
        message: '2 units sold (sold count now 2)',
        quantity: 2,
        run_id: 'r',
        at: '1970-01-01T00:00:00.000Z',
      },
    ]);
    expect(notificationText(notifications[0]!)).toBe(
      'offersync shop: item gold-1 (Gold 1000) sold: 2 units sold (sold count now 2)',
    );
  });

  it('a sale already told, a failure already told with the same message: nothing; a new message: told', () => {
    const report = (outcomes: RunReport['outcomes']): RunReport => ({
      runId: 'r',
      outcome: 'partial',
      outcomes,
      counts: {},
      requests: 0,
      durationMs: 0,
      messages: [],
      sales: [],
    });
    const now = new Date(0);
    const first = notificationsOfRun(
      report([
        { kind: 'item', externalId: 'a', outcome: 'sold', message: 'the marketplace marks it sold' },
        { kind: 'item', externalId: 'b', outcome: 'failed', message: 'HTTP 422: price' },
      ]),
      undefined,
      's',
      NOTHING_TOLD,
      now,
    );
    expect(first.notifications.map((x) => x.event)).toEqual(['sold', 'failed']);
    const again = notificationsOfRun(
      report([
        { kind: 'item', externalId: 'a', outcome: 'sold', message: 'the marketplace marks it sold' },
        { kind: 'item', externalId: 'b', outcome: 'failed', message: 'HTTP 422: title' },
      ]),
      undefined,
      's',
      first.told,
      now,
    );
    expect(again.notifications.map((x) => [x.event, x.message])).toEqual([['failed', 'HTTP 422: title']]);
    const fixed = notificationsOfRun(
      report([{ kind: 'item', externalId: 'b', outcome: 'updated' }]),
      undefined,
      's',
      again.told,
      now,
    );
    expect(fixed.told.failing).toEqual({});
    // An offer held back by its per-offer backoff is told as such.
    const held = notificationsOfRun(
      report([{ kind: 'item', externalId: 'c', outcome: 'held', message: 'the marketplace refused it (422)' }]),
      undefined,
      's',
      fixed.told,
      now,
    );
    expect(held.notifications.map((x) => x.event)).toEqual(['backoff']);
  });

  it('gives up after maxAttempts on 5xx, and at once on a 4xx', async () => {
    const down = await receiver((_n, res) => {
      res.writeHead(500).end();
      return true;
    });
    const gone = await receiver((_n, res) => {
      res.writeHead(404).end();
      return true;
    });
    closers.push(down.close, gone.close);
    const all = new Set(['sold'] as const);
    const w = new WebhookNotifier({
      targets: [
        { url: down.url, events: all },
        { url: gone.url, events: all },
      ],
      maxAttempts: 3,
      retryBaseMs: 10,
    });
    w.send([n]);
    await w.flush(10_000);
    expect([down.attempts(), gone.attempts()]).toEqual([3, 1]);
    expect(w.stats).toEqual({ delivered: 0, failed: 2, dropped: 0 });
  });
});
