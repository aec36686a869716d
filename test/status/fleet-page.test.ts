// The fleet page as a function of its view: every seller's row, hostile text escaped (a seller's error message and
// a host name are data), no script, and a summary that agrees with the rows.
import { describe, expect, it } from 'vitest';
import { startOfDayUtc, type FleetSellerView } from '../../src/status/fleet-board.ts';
import { renderFleetPage, sellerPagePath } from '../../src/status/fleet-page.ts';

const NOW = Date.UTC(2026, 10, 24, 18, 30);
const seller = (over: Partial<FleetSellerView> & Pick<FleetSellerView, 'seller'>): FleetSellerView => ({
  here: false,
  heldBy: { replica: '4c85f5e2-aaaa-bbbb-cccc-000000000001', host: 'node-1', pid: 7 },
  error: null,
  lastRun: { at: NOW - 60_000, outcome: 'converged', command: 'daemon' },
  heldOffers: 0,
  failedOffers: 0,
  salesToday: 0,
  unreadable: null,
  ...over,
});

describe('the fleet page', () => {
  it('shows each seller with its holder, last run, held, failed and sales of the day, escaped', () => {
    const html = renderFleetPage({
      replica: '85d08c90-0000-0000-0000-000000000002',
      liveReplicas: 2,
      generatedAt: NOW,
      refreshSeconds: 15,
      trouble: null,
      sellers: [
        seller({ seller: 'eu', here: true, heldOffers: 2, salesToday: 3 }),
        seller({
          seller: 'us',
          heldBy: { replica: 'r"><script>alert(1)</script>', host: '<img src=x onerror=alert(1)>', pid: 1 },
          error: 'catalogue <script>alert("x")</script> unreadable',
          lastRun: { at: NOW - 7_200_000, outcome: 'partial', command: 'daemon' },
          failedOffers: 1,
        }),
        seller({ seller: 'new', heldBy: null, lastRun: null }),
      ],
    });
    expect(html).not.toMatch(/<script|<img|onerror=alert\(1\)>/);
    expect(html).toContain('catalogue &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; unreadable');
    expect(html).toContain(`<a href="${sellerPagePath('eu')}"><b>eu</b></a>`);
    const text = html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toMatch(/ eu this replica 4c85f5e2 node-1 converged 60 s ago 2 0 3 /);
    expect(text).toMatch(/ us cannot start .* partial 2 h ago 0 1 0 /);
    expect(text).toMatch(/ new nobody no run yet 0 0 0 /);
    expect(text).toContain('1 of 3 need a look');
    expect(text).toContain('3 seller(s) · 2 replica(s) live');
  });

  it('says how to add a seller when there is none', () => {
    const html = renderFleetPage({
      replica: 'r',
      liveReplicas: 1,
      generatedAt: NOW,
      refreshSeconds: 15,
      trouble: 'balancing sellers failed (the state db does not answer?): ECONNREFUSED',
      sellers: [],
    });
    expect(html).toContain('offersync sellers add ID --catalogue DIR --api-key-file FILE');
    expect(html).toContain('role="alert"');
  });

  it('counts the sales of the day from midnight UTC', () => {
    expect(startOfDayUtc(NOW)).toBe(Date.UTC(2026, 10, 24));
  });
});
