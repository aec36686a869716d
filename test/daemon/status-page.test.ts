// The status page's HTML from a status view: everything escaped, an offer's credentials and the API key never
// shown even when a marketplace message echoes them, and no script.
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../../src/log/scrubber.ts';
import { fileSalesLedger } from '../../src/sync/sales-ledger.ts';
import { StatusBoard } from '../../src/daemon/status-board.ts';
import { renderStatusPage } from '../../src/daemon/status-page.ts';
import type { CatalogueView } from '../../src/sync/reconciler.ts';

const store = {
  listOffers: async () => [],
  listRuns: async () => [],
  getMeta: async () => undefined,
  setMeta: async () => undefined,
};

describe('status page HTML', () => {
  it('escapes what the catalogue and the marketplace say, and scrubs credentials and the key', async () => {
    registerSecret('api-key-status-9999');
    const board = new StatusBoard(store, fileSalesLedger(':memory:'), 'Shop <b>&</b>');
    const catalogue = {
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
      ],
      complete: true,
      quarantinedFiles: [],
      invalidOffers: [],
      problems: [],
    } as unknown as CatalogueView;
    board.recordRun(
      {
        report: {
          runId: 'r1',
          outcome: 'partial',
          outcomes: [
            {
              kind: 'account',
              externalId: 'a-1',
              outcome: 'failed',
              message: "422: password 'pw-secret-77' too weak <script>x</script> (key api-key-status-9999)",
            },
          ],
          counts: { account: { failed: 1 } as never },
          requests: 3,
          durationMs: 40,
          messages: [],
          sales: [],
        },
        catalogue,
      },
      'start',
    );
    const html = renderStatusPage(
      await board.view({ ready: true, running: false, lastError: null, waiting: null, lastOutcome: 'partial' }, null),
    );
    expect(html).not.toContain('pw-secret-77');
    expect(html).not.toContain('api-key-status-9999');
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Shop &lt;b&gt;&amp;&lt;/b&gt;');
    expect(html).toContain('accounts/a.csv:2');
    expect(html).toContain('some offers failed');
  });

  it('scrubs credentials a message quotes JSON-escaped, as \\uXXXX or URL-encoded, and short ones', async () => {
    const board = new StatusBoard(store, fileSalesLedger(':memory:'), 'Shop');
    const catalogue = {
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
      ],
      complete: true,
      quarantinedFiles: [],
      invalidOffers: [],
      problems: [],
    } as unknown as CatalogueView;
    const message =
      'The credentials are invalid: {"login": "al", "password": "Qz9\\"\\\\\\u00e9\\/x", "email_login": "e"}; ' +
      'mail=Mail%20pw%2B1';
    board.recordRun(
      {
        report: {
          runId: 'r2',
          outcome: 'partial',
          outcomes: [{ kind: 'account', externalId: 'a-2', outcome: 'failed', message }],
          counts: { account: { failed: 1 } as never },
          requests: 1,
          durationMs: 10,
          messages: [],
          sales: [],
        },
        catalogue,
      },
      'start',
    );
    const html = renderStatusPage(
      await board.view({ ready: true, running: false, lastError: null, waiting: null, lastOutcome: 'partial' }, null),
    );
    expect(html).toContain('The credentials are invalid');
    expect(html).not.toContain('Qz9');
    expect(html).not.toContain('Mail');
    expect(html).not.toMatch(/&quot;(al|e)&quot;|&#34;(al|e)&#34;/);
  });
});
