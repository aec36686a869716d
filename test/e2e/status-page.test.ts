// The daemon's pages in a real browser, read as a seller reads them: Debian's headless Chromium driven by
// playwright-core, on a 390 px phone, against a daemon process on the sandbox. The status page names the shop,
// says what is wrong in a headline that agrees with its sections, shows the next run, each sale once with its
// title and price, and how many offers match; nothing on it is wider than the phone, no script runs, no credential
// shows. An offer's page shows its history; the search (a plain GET form) finds offers by title. The screenshots
// are written to test/output/status-page/ (phone-390.png: docs/status-page.png is one of these).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { type DaemonProc, daemonYaml, startDaemon } from '../support/daemon-process.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/until.ts';

const KEY = 'status-page-key-4242';
const PASSWORD = 'hunter2-status-secret';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PHONE = 390;
export const SCREENSHOTS = fileURLToPath(new URL('../output/status-page/', import.meta.url));
/** A title a catalogue could hold: markup and both quotes, shown as text and never run. */
const HOSTILE_TITLE = `<script>document.title='pwned'</script> "Evil" & 'co' <img src=x onerror=alert(1)>`;
const LONG_ID = `bundle-${'x'.repeat(90)}`;

// .ci/run installs Chromium, so CI always runs this file; a developer machine without it skips it and says why.
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM}: .ci/run installs it`);
if (!haveBrowser)
  console.warn(
    `status page browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or CHROMIUM_PATH)`,
  );

let sandbox: RunningSandbox;
let dir: string;
let port: number;
let daemon: DaemonProc | undefined;
let browser: Browser | undefined;

const page = (path = '/'): Promise<string | undefined> =>
  fetch(`http://127.0.0.1:${port}${path}`)
    .then((r) => (r.status === 200 ? r.text() : undefined))
    .catch(() => undefined);

/** How many runs the page lists. */
const runsShown = (html: string): number => (html.split('Last runs</h2>')[1] ?? '').split('<tr>').length - 2;

beforeAll(async () => {
  if (!haveBrowser) return;
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-status-page-'));
  for (const sub of ['accounts', 'items', 'top-ups']) mkdirSync(join(dir, 'catalogue', sub), { recursive: true });
  port = await freePort();
  writeFileSync(
    join(dir, 'offersync.yaml'),
    daemonYaml({
      baseUrl: sandbox.url,
      healthPort: port,
      more: [
        // An incremental run every second, so that a sale shows without waiting for the default five minutes.
        'schedule:\n  tick: "* * * * * *"',
        'notify:\n  seller: Demo Games Shop',
      ],
    }),
  );
  writeFileSync(
    join(dir, 'catalogue', 'items', 'stock.json'),
    JSON.stringify([
      { external_id: 'gold-1000', title: 'Gold 1000', price: 2499, stock: 5 },
      { external_id: 'gems-500', title: 'Gems 500', price: 999, stock: 12 },
      { external_id: 'mount-rare', title: 'Rare mount', price: 4500, status: 'refunded' },
      { external_id: 'evil-1', title: HOSTILE_TITLE, price: 1000, stock: 1 },
      { external_id: LONG_ID, title: `Mega bundle ${'with everything '.repeat(8)}`, price: 99_999, stock: 1 },
    ]),
  );
  writeFileSync(
    join(dir, 'catalogue', 'accounts', 'eu.csv'),
    [
      'external_id;title;price;level;credentials.login;credentials.password',
      `acc-eu-1;Gold account, EUW;49,90;30;seller1;${PASSWORD}`,
      `acc-eu-2;Diamond account;-5;120;seller2;${PASSWORD}`,
      '',
    ].join('\r\n'),
  );
  daemon = startDaemon(join(dir, 'offersync.yaml'), {
    PATH: process.env.PATH,
    OFFERSYNC_API_KEY: KEY,
    OFFERSYNC_LOG_LEVEL: 'warn',
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // As root in a container, on a closed network: no sandbox, no GPU, no calls home.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (daemon) {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** A phone: 390 px wide, touch, and JavaScript off (the pages need none). */
async function onPhone<T>(fn: (tab: Page) => Promise<T>): Promise<T> {
  const context = await browser!.newContext({
    viewport: { width: PHONE, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    javaScriptEnabled: false,
  });
  try {
    return await fn(await context.newPage());
  } finally {
    await context.close();
  }
}

/** Nothing wider than the phone: the page does not scroll sideways. The probe runs from outside the page. */
async function scrollWidth(tab: Page): Promise<number> {
  return tab.evaluate(() => document.scrollingElement!.scrollWidth);
}

/**
 * The text a reader sees: innerText is the rendered text (what CSS hides, such as the tables' headers on a phone,
 * is not in it), which textContent is not.
 */
// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is asserted
const seen = (l: Locator): Promise<string> => l.innerText();

async function screenshot(tab: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await tab.screenshot({ path: join(SCREENSHOTS, name), fullPage: true });
}

describe.skipIf(!haveBrowser)('status page in headless Chromium on a 390 px phone', { timeout: 180_000 }, () => {
  it('names the shop; its headline agrees with its sections; next run, matches, each sale once', async () => {
    await until(
      'the first run to end',
      async () => ((await page())?.includes('>partial</span>') ? true : undefined),
      90_000,
    );
    sandbox.setStatus('accounts', 'acc-eu-1', 'sold');
    sandbox.sell('items', 'gold-1000', 2);
    // Sales name their offers: a hostile title and a long external_id come onto the page with them.
    sandbox.sell('items', 'evil-1', 1);
    sandbox.sell('items', LONG_ID, 1);
    const sold = await until(
      'both sales on the page',
      async () => {
        const html = await page();
        const all = ['acc-eu-1</b> · Gold account, EUW', '2 × 24.99', 'evil-1</b>', `${LONG_ID}</b>`];
        return html && all.every((s) => html.includes(s)) ? html : undefined;
      },
      90_000,
    );
    // Two more runs see the sold account again: it must still be told once.
    const runs = runsShown(sold);
    await until('two more runs', async () => (runsShown((await page()) ?? '') >= runs + 2 ? true : undefined), 90_000);

    await onPhone(async (tab) => {
      const res = await tab.goto(`http://127.0.0.1:${port}/`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toMatch(/default-src 'none'/);
      expect(await tab.title()).toBe('Demo Games Shop · offersync');
      expect(await seen(tab.locator('h1'))).toBe('Demo Games Shop');
      const text = await seen(tab.locator('body'));
      expect(text).not.toContain(sandbox.url.replace('http://', ''));

      // The headline and the sections say the same: each number it gives is a section's count.
      const head = await seen(tab.locator('[role=status]'));
      const n = (re: RegExp): number => Number(re.exec(head)?.[1] ?? 0);
      const failedOrHeld = tab.locator('section', { hasText: 'Failed or held back' });
      const invalid = tab.locator('section', { hasText: 'Invalid offers in the catalogue' });
      expect(await seen(failedOrHeld.locator('h2'))).toBe(
        `Failed or held back (${n(/(\d+) offers? failed/) + n(/(\d+) offers? held back/)})`,
      );
      expect(await seen(invalid.locator('h2'))).toBe(`Invalid offers in the catalogue (${n(/(\d+) invalid/)})`);
      // mount-rare's status was refused (held back by its backoff after the first run); acc-eu-2's price is wrong.
      expect(head).toMatch(/1 offer (failed|held back), 1 invalid offer in the catalogue/);
      expect(head).not.toContain('some offers failed');
      expect(await seen(failedOrHeld)).toMatch(/item mount-rare · Rare mount\s+(failed|held back)/);
      expect(await seen(failedOrHeld)).toMatch(/422 validation failed \(fields: status\)/);
      expect(await seen(invalid)).toMatch(/accounts\/eu\.csv:3:26\s+account acc-eu-2\s+price: must be greater/);

      // How many offers match, and when the next run is.
      expect(text).toMatch(/4 of 7 offers in the catalogue match the marketplace; 1 sold, refunded or processing/);
      const nextRun = String.raw`(Next run (now|in \d+ s)|A run is going on now) · full sweep in \d+ (s|min|h|d)`;
      expect(text).toMatch(new RegExp(`${nextRun}; at once when a catalogue file changes`));

      // Each sale once, with its title and price; no run says "account sold" again.
      const sales = await seen(tab.locator('section', { hasText: 'Recent sales' }));
      expect(sales.match(/account acc-eu-1 · Gold account, EUW/g)).toHaveLength(1);
      expect(sales).toMatch(/account acc-eu-1 · Gold account, EUW\s+sold\s+sold \d+ s ago · 49\.90/);
      expect(sales).toMatch(/item gold-1000 · Gold 1000\s+2 sold\s+seen \d+ s ago · 2 × 24\.99/);
      expect(await seen(tab.locator('section', { hasText: 'Last runs' }))).not.toContain('account sold');

      // The hostile title is text, the long id wraps: nothing wider than the phone, no script.
      expect(sales).toContain(`item evil-1 · ${HOSTILE_TITLE}`);
      expect(sales).toContain(LONG_ID);
      expect(await tab.title()).not.toBe('pwned');
      expect(await tab.locator('script').count()).toBe(0);
      expect(await scrollWidth(tab)).toBeLessThanOrEqual(PHONE);
      expect(await tab.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('15');
      const html = await tab.content();
      for (const secret of [PASSWORD, KEY, 'seller1']) expect(html).not.toContain(secret);
      await screenshot(tab, 'phone-390.png');
    });
  });

  it('an offer page shows the offer as last sent and its history; the search finds it by title', async () => {
    await onPhone(async (tab) => {
      await tab.goto(`http://127.0.0.1:${port}/`);
      // The search form is a plain GET: it works with JavaScript off.
      await tab.locator('input[name=q]').fill('gold 10');
      await Promise.all([tab.waitForURL(/\/offers\?q=gold\+10/), tab.locator('form.search button').click()]);
      const found = await seen(tab.locator('main'));
      expect(found).toContain('item gold-1000 · Gold 1000');
      expect(await scrollWidth(tab)).toBeLessThanOrEqual(PHONE);
      await screenshot(tab, 'search-390.png');

      await Promise.all([
        tab.waitForURL(/\/offers\/item\/gold-1000$/),
        tab.locator('a', { hasText: 'gold-1000' }).click(),
      ]);
      const offer = await seen(tab.locator('main'));
      expect(offer).toMatch(/status on the marketplace\s+listed/);
      expect(offer).toMatch(/marketplace id\s+\d+/);
      expect(offer).toMatch(/in the catalogue\s+items\/stock\.json/);
      expect(offer).toMatch(/price\s+24\.99/);
      const history = await seen(tab.locator('section', { hasText: 'History' }));
      expect(history).toMatch(/created\s+\d+ (s|min) ago/);
      expect(history).toMatch(/sold\s+\d+ (s|min) ago · 2 sold/);
      expect(await scrollWidth(tab)).toBeLessThanOrEqual(PHONE);
      await screenshot(tab, 'offer-390.png');

      // A hostile title on its own page and found by the search: text, never markup.
      await tab.goto(`http://127.0.0.1:${port}/offers?q=${encodeURIComponent('"Evil"')}`);
      expect(await seen(tab.locator('main'))).toContain(`item evil-1 · ${HOSTILE_TITLE}`);
      await tab.goto(`http://127.0.0.1:${port}/offers/item/evil-1`);
      expect(await seen(tab.locator('h1'))).toBe(`item evil-1 · ${HOSTILE_TITLE}`);
      expect(await tab.title()).not.toBe('pwned');
      await tab.goto(`http://127.0.0.1:${port}/offers/item/${LONG_ID}`);
      expect(await scrollWidth(tab)).toBeLessThanOrEqual(PHONE);
    });
  });

  it('is read-only: other methods are refused and change nothing', async () => {
    // The daemon's own ticks go on meanwhile; the offers on the marketplace must stay as they are.
    const before = JSON.stringify(sandbox.dump());
    for (const path of ['/', '/offers?q=gold', '/offers/item/gold-1000'])
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const r = await fetch(`http://127.0.0.1:${port}${path}`, { method });
        expect(r.status).toBe(405);
        expect(r.headers.get('allow')).toBe('GET, HEAD');
      }
    const head = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(JSON.stringify(sandbox.dump())).toBe(before);
  });
});
