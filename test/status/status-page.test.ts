// The status page's and the offer page's HTML from the board, on a real sqlite state db: everything escaped, an
// offer's credentials and the API key never shown even when a marketplace message echoes them, no script; the
// headline and the sections from one classification; each sale once with its title and price.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerSecret } from '../../src/log/scrubber.ts';
import { renderOfferPage, renderSearchPage } from '../../src/status/offer-page.ts';
import { SEARCH_SHOWN, StatusBoard, type StatusView } from '../../src/status/status-board.ts';
import { headline } from '../../src/status/status-headline.ts';
import { renderStatusPage } from '../../src/status/status-page.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import type { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import type { CatalogueView } from '../../src/sync/plan/catalogue-view.ts';
import type { RunReport } from '../../src/sync/report/run-report.ts';
import { fileSalesLedger } from '../../src/sales/sales-ledger.ts';
import type { SoldEntry } from '../../src/sales/sold-log.ts';

let store: KyselyStateStore;
let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-status-page-'));
  store = await openStateStore(join(dir, 'state.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const DAEMON = { ready: true, running: false, lastError: null, waiting: null } as const;
const SHOP = { name: 'Demo Games Shop', id: 'default' };

function report(over: Partial<RunReport> & Pick<RunReport, 'outcome' | 'outcomes'>): RunReport {
  return { runId: 'r1', counts: {}, requests: 1, durationMs: 10, messages: [], sales: [], ...over };
}

function catalogueOf(over: Partial<CatalogueView>): CatalogueView {
  return { offers: [], complete: true, quarantinedFiles: [], invalidOffers: [], problems: [], ...over };
}

/** The page's text as a reader sees it, tags dropped and entities of the escape read back. */
const text = (html: string): string =>
  html
    .replace(/<style>[\s\S]*?<\/style>/, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

describe('status page HTML', () => {
  it('escapes what the catalogue and the marketplace say, and scrubs credentials and the key', async () => {
    registerSecret('api-key-status-9999');
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), {
      name: 'Shop <b>&</b>',
      id: 'default',
    });
    const catalogue = catalogueOf({
      offers: [
        {
          kind: 'account',
          externalId: 'a-1',
          hash: 'h',
          source: { file: 'accounts/a.csv', line: 2 },
          fields: { title: '<img src=x onerror=alert(1)>', price: 100 },
          credentials: { login: 'bob', password: 'pw-secret-77' },
          images: [],
        },
      ] as unknown as CatalogueView['offers'],
    });
    board.recordRun(
      {
        report: report({
          outcome: 'partial',
          outcomes: [
            {
              kind: 'account',
              externalId: 'a-1',
              outcome: 'failed',
              message: "422: password 'pw-secret-77' too weak <script>x</script> (key api-key-status-9999)",
            },
          ],
        }),
        catalogue,
      },
      'start',
    );
    const html = renderStatusPage(await board.view({ ...DAEMON, lastOutcome: 'partial' }, null));
    expect(html).not.toContain('pw-secret-77');
    expect(html).not.toContain('api-key-status-9999');
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Shop &lt;b&gt;&amp;&lt;/b&gt;');
    expect(html).toContain('accounts/a.csv:2');
    expect(text(html)).toContain('1 offer failed');
    expect(text(html)).toContain('Failed or held back (1)');
  });

  it('scrubs credentials a message quotes JSON-escaped, as \\uXXXX or URL-encoded, and short ones', async () => {
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    const catalogue = catalogueOf({
      offers: [
        {
          kind: 'account',
          externalId: 'a-2',
          hash: 'h',
          source: { file: 'accounts/a.json' },
          fields: { title: 'T', price: 100 },
          credentials: { login: 'al', password: 'Qz9"\\é/x', email_login: 'e', email_password: 'Mail pw+1' },
          images: [],
        },
      ] as unknown as CatalogueView['offers'],
    });
    const message =
      'The credentials are invalid: {"login": "al", "password": "Qz9\\"\\\\\\u00e9\\/x", "email_login": "e"}; ' +
      'mail=Mail%20pw%2B1';
    board.recordRun(
      {
        report: report({
          outcome: 'partial',
          outcomes: [{ kind: 'account', externalId: 'a-2', outcome: 'failed', message }],
        }),
        catalogue,
      },
      'start',
    );
    const html = renderStatusPage(await board.view({ ...DAEMON, lastOutcome: 'partial' }, null));
    expect(html).toContain('The credentials are invalid');
    expect(html).not.toContain('Qz9');
    expect(html).not.toContain('Mail pw');
    expect(html).not.toMatch(/&quot;(al|e)&quot;|&#34;(al|e)&#34;/);
  });

  it('a run whose only trouble is the catalogue says "invalid offers in the catalogue", never "failed"', async () => {
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    const catalogue = catalogueOf({
      offers: [
        { kind: 'item', externalId: 'gold-1', hash: 'h1', source: { file: 'items/a.json' }, fields: { title: 'Gold' } },
      ] as unknown as CatalogueView['offers'],
      invalidOffers: [{ kind: 'account', externalId: 'acc-2', file: 'accounts/eu.csv' }],
      problems: [
        {
          severity: 'error',
          kind: 'account',
          file: 'accounts/eu.csv',
          line: 3,
          externalId: 'acc-2',
          field: 'price',
          message: 'must be greater than zero',
        },
      ],
    });
    await store.upsertOffer('item', 'gold-1', { remoteId: 5, remoteStatus: 'listed', contentHash: 'h1' });
    board.recordRun(
      {
        report: report({
          outcome: 'partial',
          // The reconciler reports the catalogue's errors as invalid outcomes of their offers, never failed.
          outcomes: [
            { kind: 'item', externalId: 'gold-1', outcome: 'unchanged' },
            { kind: 'account', externalId: 'acc-2', outcome: 'invalid', message: 'price: must be greater than zero' },
          ],
        }),
        catalogue,
      },
      'start',
    );
    const view = await board.view({ ...DAEMON, lastOutcome: 'partial' }, null);
    expect(view.trouble).toEqual({ failed: 0, held: 0, invalid: 1 });
    const page = text(renderStatusPage(view));
    expect(page).toContain('1 invalid offer in the catalogue');
    expect(page).not.toMatch(/offers? failed/);
    expect(page).toContain('Failed or held back (0) None.');
    expect(page).toContain('Invalid offers in the catalogue (1) accounts/eu.csv:3');
    expect(page).toContain('1 of 2 offers in the catalogue match the marketplace');
  });

  it('a held cheap new offer and a catalogue warning are on the page, not only in validate', async () => {
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    const held =
      "price guard: not listed: this new offer's price 0.89 (accounts/lol.xlsx) is under a tenth of the median " +
      '30.00 of your other account offers of lol';
    const catalogue = catalogueOf({
      problems: [
        {
          severity: 'warning',
          kind: 'account',
          file: 'accounts/lol.xlsx',
          line: 1,
          column: 4,
          field: 'Notes',
          message: "column 'Notes' names no field of account offers; its cells are not read",
        },
      ],
    });
    board.recordRun(
      {
        report: report({
          outcome: 'partial',
          outcomes: [{ kind: 'account', externalId: 'LOL-002', outcome: 'blocked', message: held }],
        }),
        catalogue,
      },
      'start',
    );
    const page = text(renderStatusPage(await board.view({ ...DAEMON, lastOutcome: 'partial' }, null)));
    expect(page).toContain('LOL-002');
    expect(page).toContain(held);
    expect(page).toContain("warning: Notes: column 'Notes' names no field of account offers");
  });

  it('lists each sale once across runs, with its title and price, newest first', async () => {
    const sale = (over: Partial<SoldEntry>): SoldEntry => ({
      kind: 'account',
      external_id: 'acc-1',
      id: 11,
      status: 'sold',
      sale_key: 'account:11:sold:2026-11-24T10:00:00.000Z',
      title: 'Gold account, EUW',
      price: 4990,
      currency: null,
      sold_at: '2026-11-24T10:00:00.000Z',
      sold_at_source: 'marketplace',
      seen_at: '2026-11-24T10:00:05.000Z',
      ...over,
    });
    const lines = [
      sale({}),
      sale({ seen_at: '2026-11-24T10:01:05.000Z' }), // the same sale, told by a later run
      sale({
        kind: 'topup',
        external_id: 'tu-1',
        id: 12,
        sale_key: 'topup:12:count:3',
        title: '100 gems',
        price: 199,
        currency: 'EUR',
        quantity: 3,
        sold_count: 3,
        sold_at: '2026-11-24T10:02:00.000Z',
        sold_at_source: 'seen',
      }),
    ];
    // A line of an older release: no sale_key, title or price; and a torn last line.
    const old = {
      kind: 'account',
      external_id: 'acc-0',
      id: 10,
      status: 'sold',
      sold_at: null,
      seen_at: '2026-11-20T00:00:00Z',
    };
    writeFileSync(
      join(dir, 'sold.jsonl'),
      `${[old, old, ...lines].map((l) => JSON.stringify(l)).join('\n')}\n{"kind":"acc`,
    );
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    const view = await board.view({ ...DAEMON, lastOutcome: null }, null, Date.parse('2026-11-24T10:05:00Z'));
    expect(view.sales.map((s) => s.externalId)).toEqual(['tu-1', 'acc-1', 'acc-0']);
    const page = text(renderStatusPage(view));
    expect(page.match(/account acc-1 · Gold account, EUW/g)).toHaveLength(1);
    expect(page).toContain('account acc-1 · Gold account, EUW sold sold 5 min ago · 49.90');
    expect(page).toContain('topup tu-1 · 100 gems 3 sold seen 3 min ago · 3 × 1.99 EUR');
  });

  it('names the shop, else the seller id, never the marketplace host; shows the next run', async () => {
    const view = async (
      seller: { name: string | null; id: string },
      running = false,
      work: { left: number; seconds: number } | null = null,
    ) =>
      renderStatusPage(
        await new StatusBoard(store, fileSalesLedger(':memory:'), seller).view(
          {
            ...DAEMON,
            running,
            work,
            lastOutcome: 'converged',
            schedule: { nextTick: Date.parse('2026-11-24T10:00:40Z'), nextSweep: Date.parse('2026-11-24T15:00:00Z') },
          },
          null,
          Date.parse('2026-11-24T10:00:00Z'),
        ),
      );
    const named = await view({ name: 'Demo Games Shop', id: 'eu-shop' });
    expect(named).toContain('<title>Demo Games Shop · offersync</title>');
    expect(text(named)).toContain('Demo Games Shop (eu-shop) in sync');
    expect(text(named)).toMatch(/Next run in 40 s · full sweep in 5 h ?; at once when a catalogue file changes/);
    expect(text(await view({ name: null, id: 'eu-shop' }))).toMatch(/^ ?eu-shop · offersync/);
    // Mid-run the page says so, and still when the full sweep comes.
    const midRun = text(await view({ name: 'Demo Games Shop', id: 'eu-shop' }, true));
    expect(midRun).toMatch(/A run is going on now · full sweep in 5 h ?; at once when a catalogue file changes/);
    expect(midRun).not.toContain('Next run in 40 s');
    // While a run writes, what it has left and how long that takes at the queue's rate.
    const writing = text(await view({ name: 'Demo Games Shop', id: 'eu-shop' }, true, { left: 1_180, seconds: 59 }));
    expect(writing).toMatch(/A run is going on now: 1,180 writes left, about 59 s · full sweep in 5 h/);
  });
});

describe('headline', () => {
  const v = (trouble: StatusView['trouble'], lastOutcome: string | null, more: Partial<StatusView['daemon']> = {}) =>
    headline({ daemon: { ...DAEMON, lastOutcome, ...more }, trouble });
  it.each([
    [{ failed: 0, held: 0, invalid: 0 }, 'converged', {}, 'in sync', 'ok'],
    [
      { failed: 2, held: 1, invalid: 3 },
      'partial',
      {},
      '2 offers failed, 1 offer held back, 3 invalid offers in the catalogue',
      'bad',
    ],
    [{ failed: 0, held: 0, invalid: 1 }, 'partial', {}, '1 invalid offer in the catalogue', 'warn'],
    [{ failed: 0, held: 2, invalid: 0 }, 'partial', {}, '2 offers held back', 'warn'],
    [{ failed: 0, held: 0, invalid: 0 }, 'stopped', {}, 'last run stopped', 'warn'],
    [{ failed: 0, held: 0, invalid: 0 }, null, {}, 'starting', 'info'],
    [{ failed: 1, held: 0, invalid: 0 }, 'partial', { lastError: 'boom' }, 'last run failed', 'bad'],
    [{ failed: 0, held: 0, invalid: 0 }, 'converged', { waiting: 'lease' }, 'waiting', 'warn'],
  ] as const)('%o after %s %o: %s', (trouble, outcome, more, want, tone) => {
    expect(v(trouble, outcome, more)).toEqual({ text: want, tone });
  });
});

describe('offer page and search', () => {
  const HOSTILE = `<script>alert("x")</script> 'Gold' & "more"`;

  it('shows one offer as last sent, where it stands and its history, every value escaped', async () => {
    await store.upsertOffer('item', 'gold-1', {
      remoteId: 77,
      remoteStatus: 'listed',
      lastApplied: { title: HOSTILE, price: 2499, stock: 5 },
      title: HOSTILE,
    });
    await store.recordOfferEvents([
      {
        kind: 'item',
        externalId: 'gold-1',
        runId: 'r1',
        at: Date.parse('2026-11-24T09:00:00Z'),
        type: 'created',
        route: 'POST /api/v1/items',
        changes: [],
        quantity: null,
        detail: 'new in the catalogue',
        answer: { outcome: 'ok', status: 201, message: null },
      },
      {
        kind: 'item',
        externalId: 'gold-1',
        runId: 'r2',
        at: Date.parse('2026-11-24T09:30:00Z'),
        type: 'updated',
        route: 'PATCH /api/v1/items/:id',
        changes: [{ field: 'price', from: 2999, to: 2499, why: 'changed' }],
        quantity: null,
        detail: null,
        answer: { outcome: 'refused', status: 422, message: '<b>price</b> too low' },
      },
    ]);
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    const html = renderOfferPage(await board.offerView('item', 'gold-1', Date.parse('2026-11-24T10:00:00Z')));
    expect(html).not.toMatch(/<script|<b>price/);
    const page = text(html);
    expect(page).toContain(`item gold-1 · ${HOSTILE}`);
    expect(page).toContain('status on the marketplace listed marketplace id 77');
    // Prices as money, never as the cents the API carries.
    expect(page).toContain('price 24.99 stock 5');
    // Newest first: the refused update, then the create.
    expect(page).toMatch(
      /updated 30 min ago · marketplace: refused it \(422\).*price: 29.99 → 24.99.*created 60 min ago/,
    );
    expect(page).toContain('<b>price</b> too low');
  });

  it("shows a top-up's prices in its own currency", async () => {
    await store.upsertOffer('topup', 'gems-1', {
      remoteId: 9,
      remoteStatus: 'listed',
      lastApplied: { offer_title: 'Gems', price: 949, currency: 'EUR' },
    });
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    expect(text(renderOfferPage(await board.offerView('topup', 'gems-1')))).toContain('price 9.49 EUR');
  });

  it('says what to do for an offer it does not know', async () => {
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    const page = text(renderOfferPage(await board.offerView('account', 'nope"<x>')));
    expect(page).toContain('offersync knows no account with this external_id');
    expect(renderOfferPage(await board.offerView('account', 'nope"<x>'))).toContain('value="nope&quot;&lt;x&gt;"');
  });

  it('finds offers by external_id or title and escapes the query', async () => {
    await store.upsertOffer('item', 'gold-1', { remoteId: 1, remoteStatus: 'listed', title: 'Gold 1000' });
    await store.upsertOffer('topup', 'gems-500', { remoteId: 2, remoteStatus: 'listed', title: 'Gems 500' });
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    const gold = text(renderSearchPage(await board.search('gold')));
    expect(gold).toContain('1 found for “gold”. item gold-1 · Gold 1000');
    expect(text(renderSearchPage(await board.search('GEMS 5')))).toContain('topup gems-500 · Gems 500');
    const hostile = renderSearchPage(await board.search('"><script>'));
    expect(hostile).not.toContain('<script>');
    expect(text(hostile)).toContain('No offer\'s external_id or title holds “"><script>”');
  });

  it('says how many match, not how many it lists', async () => {
    for (let i = 0; i < 47; i++)
      await store.upsertOffer('item', `skin-${i}`, { remoteId: 100 + i, remoteStatus: 'listed', title: `Skin ${i}` });
    for (let i = 0; i < 120; i++)
      await store.upsertOffer('item', `rune-${i}`, { remoteId: 300 + i, remoteStatus: 'listed', title: `Rune ${i}` });
    const board = new StatusBoard(store, fileSalesLedger(join(dir, 'state.db')), SHOP);
    const skins = await board.search('skin');
    expect(skins.hits).toHaveLength(SEARCH_SHOWN);
    expect(text(renderSearchPage(skins))).toContain(
      `47 found for “skin”; the first ${SEARCH_SHOWN} are shown: make the search longer.`,
    );
    expect(text(renderSearchPage(await board.search('rune')))).toContain('100 or more found for “rune”; the first');
  });
});
