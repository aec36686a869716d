import { afterEach, describe, expect, it } from 'vitest';
import { notificationsOfRun, notificationText, NOTHING_TOLD } from '../../src/notify/notification.ts';
import { redactUrl, WebhookNotifier, webhookBody } from '../../src/notify/webhook-notifier.ts';
import type { RunReport } from '../../src/sync/report/run-report.ts';
import { receiver } from './support/webhook-receiver.ts';
import { unitSale } from '../support/offers.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
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
      sales: [unitSale()],
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
