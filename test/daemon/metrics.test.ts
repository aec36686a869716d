// The metrics exposition: Prometheus naming (counters end in _total, units in names), requests by kind, method
// and status class, live gauges read at scrape time, process metrics; and `promtool check metrics` accepts it.
import { describe, expect, it } from 'vitest';
import { DaemonMetrics, kindOfPath, statusClass } from '../../src/daemon/metrics.ts';
import { promtool, skipPromtool } from '../support/promtool.ts';

function exposition(m: DaemonMetrics): Promise<string> {
  return m.registry.metrics();
}

/** name -> type, from the # TYPE lines. */
function types(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((t) => [t[1]!, t[2]!]));
}

describe('daemon metrics', () => {
  it('counts requests by kind, method and status class, 429s and retries; live gauges read the source', async () => {
    const m = new DaemonMetrics();
    const scope = m.scope();
    let size = 7;
    scope.watch({
      queue: () => ({ size, pending: 2, currentRate: 4.5 }),
      runInProgress: () => true,
      leaseHeld: () => true,
    });
    scope.onResponse({ method: 'POST', path: '/api/v1/accounts', status: 201, seconds: 0.03 });
    scope.onResponse({ method: 'GET', path: '/api/v1/top-ups', status: 429, seconds: 0.01 });
    scope.onResponse({ method: 'PATCH', path: '/api/v1/items/12', status: null, seconds: 30 });
    scope.onQueueEvent({
      type: 'rate-limited',
      method: 'GET',
      path: '/api/v1/top-ups',
      retryAfterMs: 1000,
      rate: 2,
      firstOfEpisode: true,
    });
    scope.onQueueEvent({
      type: 'retry',
      method: 'GET',
      path: '/api/v1/top-ups',
      attempt: 1,
      delayMs: 0,
      reason: '429',
    });
    const text = await exposition(m);
    expect(text).toContain(
      'offersync_requests_total{seller="default",kind="account",method="POST",status_class="2xx"} 1',
    );
    expect(text).toContain('offersync_requests_total{seller="default",kind="topup",method="GET",status_class="4xx"} 1');
    expect(text).toContain(
      'offersync_requests_total{seller="default",kind="item",method="PATCH",status_class="error"} 1',
    );
    expect(text).toContain('offersync_rate_limited_total{seller="default"} 1');
    expect(text).toContain('offersync_retries_total{seller="default"} 1');
    expect(text).toContain('offersync_queue_size{seller="default"} 7');
    expect(text).toContain('offersync_requests_in_flight{seller="default"} 2');
    expect(text).toContain('offersync_rate_limit_requests_per_second{seller="default"} 4.5');
    expect(text).toContain('offersync_run_in_progress{seller="default"} 1');
    expect(text).toContain('offersync_writer_lease_held{seller="default"} 1');
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
    // Live: the next scrape sees the queue as it is then, not as it was after a run.
    size = 0;
    expect(await exposition(m)).toContain('offersync_queue_size{seller="default"} 0');
  });

  it('follows the naming conventions: counters end in _total and nothing else does', async () => {
    const m = new DaemonMetrics();
    m.scope().recordRun(
      {
        runId: 'r1',
        outcome: 'converged',
        outcomes: [],
        counts: {},
        requests: 3,
        durationMs: 1200,
        messages: [],
        sales: [],
      },
      'start',
    );
    for (const [name, type] of types(await exposition(m))) {
      if (!name.startsWith('offersync_')) continue;
      expect(name.endsWith('_total'), name).toBe(type === 'counter');
    }
    expect(kindOfPath('/shop/api/v1/accounts/bulk-remove')).toBe('account');
    expect(kindOfPath('/api/v1/images')).toBe('image');
    expect(statusClass(503)).toBe('5xx');
  });

  it('counts units sold by kind', async () => {
    const m = new DaemonMetrics();
    const sale = (kind: 'item' | 'topup', quantity: number) => ({
      kind,
      externalId: `${kind}-1`,
      title: null,
      price: null,
      currency: null,
      quantity,
      remoteId: 1,
      soldCount: quantity,
    });
    const report = {
      runId: 'r1',
      outcome: 'converged' as const,
      outcomes: [],
      counts: {},
      requests: 1,
      durationMs: 10,
      messages: [],
      sales: [sale('item', 2), sale('item', 3), sale('topup', 7)],
    };
    m.scope().recordRun(report, 'tick');
    const text = await exposition(m);
    expect(text).toContain('offersync_units_sold_total{seller="default",kind="item"} 5');
    expect(text).toContain('offersync_units_sold_total{seller="default",kind="topup"} 7');
  });

  it('shows the process once, each seller under its label, and forgets a seller that leaves', async () => {
    const m = new DaemonMetrics();
    m.configureSellers(() => ['a', 'b', 'c']);
    const source = (held: boolean) => ({
      queue: () => ({ size: 0, pending: 0, currentRate: 5, advertisedRate: 10 }),
      runInProgress: () => false,
      leaseHeld: () => held,
    });
    const a = m.scope({ seller: 'a' });
    const b = m.scope({ seller: 'b' });
    a.watch(source(true));
    b.watch(source(true));
    a.onResponse({ method: 'GET', path: '/api/v1/items', status: 200, seconds: 0.01 });
    b.onResponse({ method: 'GET', path: '/api/v1/items', status: 429, seconds: 0.01 });
    b.recordGuard(true, true);
    a.recordError('tick', true);
    let text = await exposition(m);
    expect(text.match(/^process_cpu_seconds_total /gm)).toHaveLength(1);
    expect(text).not.toMatch(/^(process|nodejs)_\w*\{[^}]*seller=/m);
    expect(text).toContain('offersync_requests_total{seller="b",kind="item",method="GET",status_class="4xx"} 1');
    expect(text).toContain('offersync_guard_stops_total{seller="b"} 1');
    expect(text).toContain('offersync_guard_stopped{seller="b"} 1');
    expect(text).toContain('offersync_marketplace_unreadable_runs_total{seller="a"} 1');
    expect(text).toContain('offersync_marketplace_unreadable{seller="a"} 1');
    expect(text).toContain('offersync_rate_limit_advertised_requests_per_second{seller="a"} 10');
    // c runs nowhere here: shown as not held, so an alert sees a seller no replica holds.
    expect(text).toContain('offersync_writer_lease_held{seller="c"} 0');
    a.close();
    text = await exposition(m);
    const left = text.split('\n').filter((l) => /^offersync_\w+\{seller="a"[,}]/.test(l));
    expect(left).toEqual(['offersync_writer_lease_held{seller="a"} 0']);
    expect(text).toContain('offersync_writer_lease_held{seller="b"} 1');
  });

  it.skipIf(skipPromtool)('is accepted by promtool check metrics', async () => {
    const m = new DaemonMetrics();
    const scope = m.scope();
    scope.watch({
      queue: () => ({ size: 1, pending: 1, currentRate: 5 }),
      runInProgress: () => false,
      leaseHeld: () => true,
    });
    scope.onResponse({ method: 'GET', path: '/api/v1/accounts', status: 200, seconds: 0.02 });
    scope.recordError('tick');
    const check = promtool(['check', 'metrics'], { input: await exposition(m) });
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });
});
