// A replica's /metrics as Prometheus scrapes it: one replica process on PostgreSQL (embedded, 127.0.0.1) running
// two sellers against the sandbox (127.0.0.1), after both converged, and a third whose key the sandbox refuses
// (its lists unreadable). The exposition is valid (promtool check
// metrics), shows the process once and every offersync series with its seller, and has every metric the Grafana
// dashboard and the alert rules read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { promtool, skipPromtool } from '../support/promtool.ts';
import {
  converged,
  type Fleet,
  type ReplicaProc,
  startFleet,
  startReplica,
  stopFleet,
} from '../support/replica-fleet.ts';
import { until } from '../support/until.ts';

const SELLERS = ['m1', 'm2'];
/** Its key is not one the sandbox knows: every run fails to read the marketplace. */
const REFUSED = 'm3';
const root = join(import.meta.dirname, '..', '..');

let server: TestPostgres;
let fleet: Fleet;
let proc: ReplicaProc | undefined;
/** The replica's /metrics once both sellers converged. */
let exposition = '';

beforeAll(async () => {
  server = await startPostgres();
  fleet = await startFleet({
    url: await server.createDatabase(),
    sellers: [...SELLERS, REFUSED],
    keyed: SELLERS,
    items: 3,
    ttlMs: 3_000,
    ratePerSec: 200,
    prefix: 'fleet-metrics',
    sandboxRateLimit: { ratePerSec: 500, burst: 50 },
  });
  const replica = await startReplica(fleet, 1);
  proc = replica;
  const served = { ...fleet, sellers: SELLERS };
  await until('both sellers converged', async () => (converged(served, 100) ? true : undefined), 60_000);
  exposition = await until(
    'a converged run of each seller on /metrics',
    async () => {
      const text = await fetch(`http://127.0.0.1:${replica.port}/metrics`)
        .then((r) => r.text())
        .catch(() => '');
      return SELLERS.every((s) => text.includes(`offersync_runs_total{seller="${s}",outcome="converged"`)) &&
        text.includes(`offersync_marketplace_unreadable{seller="${REFUSED}"} 1`)
        ? text
        : undefined;
    },
    30_000,
  );
}, 120_000);

afterAll(async () => {
  await stopFleet(fleet, proc ? [proc] : [], { signal: 'SIGTERM' });
  await server?.stop();
});

/** The names of the samples in an exposition (a histogram's _bucket, _sum and _count each). */
function sampleNames(text: string): Set<string> {
  return new Set(text.split('\n').flatMap((l) => (l.startsWith('#') || !l ? [] : [l.split(/[{ ]/)[0] ?? ''])));
}

/** Metric names a PromQL expression reads (ours and the process's: job, instance and the like are labels). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:offersync|process|nodejs)_[a-z_]+)\b/g)].map((m) => m[1] ?? '');
}

interface Dashboard {
  schemaVersion: number;
  templating: { list: { name: string; type: string; query: unknown }[] };
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
}

describe("a replica's aggregated /metrics", () => {
  it('shows the process and runtime metrics once, without a seller, and each seller its own series', () => {
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes'])
      expect(exposition.match(new RegExp(`^${name} `, 'gm')), name).toHaveLength(1);
    expect(exposition).not.toMatch(/^(process|nodejs)_\w*\{[^}]*seller=/m);
    // Every offersync series but the replica's own count carries its seller.
    const unlabelled = exposition
      .split('\n')
      .filter((l) => l.startsWith('offersync_') && !l.includes('seller="') && !l.startsWith('offersync_replicas_live'));
    expect(unlabelled).toEqual([]);
    for (const s of SELLERS) {
      expect(exposition).toContain(`offersync_writer_lease_held{seller="${s}"} 1`);
      expect(exposition).toMatch(new RegExp(`offersync_requests_total\\{seller="${s}",kind="item",method="POST"`));
      expect(exposition).toMatch(new RegExp(`offersync_last_converged_timestamp_seconds\\{seller="${s}"\\} \\d`));
    }
    expect(exposition).toContain('offersync_replicas_live 1');
  });

  it('shows a seller whose marketplace lists cannot be read, for its alert', () => {
    expect(exposition).toMatch(
      new RegExp(`^offersync_marketplace_unreadable_runs_total\\{seller="${REFUSED}"\\} [1-9]`, 'm'),
    );
    expect(exposition).toMatch(new RegExp(`^offersync_runs_total\\{seller="${REFUSED}",outcome="error"`, 'm'));
    for (const s of SELLERS) expect(exposition).toContain(`offersync_marketplace_unreadable{seller="${s}"} 0`);
    // Never converged: no timestamp, which the not-converged alert's second half catches.
    expect(exposition).not.toContain(`offersync_last_converged_timestamp_seconds{seller="${REFUSED}"}`);
  });

  it.skipIf(skipPromtool)('is valid exposition format by promtool check metrics', () => {
    const check = promtool(['check', 'metrics'], { input: exposition });
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });

  it('has every metric the Grafana dashboard and the alert rules read', () => {
    const have = sampleNames(exposition);
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy/grafana/offersync.json'), 'utf8')) as Dashboard;
    const rules = parse(readFileSync(join(root, 'deploy/prometheus/offersync-rules.yaml'), 'utf8')) as {
      groups: { rules: { alert: string; expr: string }[] }[];
    };
    const exprs = [
      ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
      ...dashboard.templating.list.flatMap((v) =>
        v.type === 'query' ? [{ where: `variable ${v.name}`, expr: JSON.stringify(v.query) }] : [],
      ),
      ...rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }))),
    ];
    const missing = exprs.flatMap(({ where, expr }) =>
      metricsIn(expr)
        .filter((m) => !have.has(m))
        .map((m) => `${where}: ${m}`),
    );
    expect(missing).toEqual([]);
    // The checks above read something: each panel but the rows has a query.
    expect(exprs.length).toBeGreaterThan(20);
    expect(dashboard.panels.filter((p) => p.type !== 'row' && !p.targets?.length)).toEqual([]);
  });
});
