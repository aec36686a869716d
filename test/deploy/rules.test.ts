// The fleet's alert rules and dashboard as files: promtool accepts the rules and its unit tests of the alerts
// pass (test/deploy/offersync-rules.promtool.yaml); the dashboard is JSON Grafana imports, with a datasource and
// a seller variable.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { promtool, skipPromtool } from '../support/promtool.ts';

const root = join(import.meta.dirname, '..', '..');

describe('deploy/prometheus/offersync-rules.yaml', () => {
  it.skipIf(skipPromtool)('passes promtool check rules', () => {
    const check = promtool(['check', 'rules', 'deploy/prometheus/offersync-rules.yaml'], { cwd: root });
    expect(check.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(check.status).toBe(0);
  });

  it.skipIf(skipPromtool)('fires its alerts as its promtool unit tests expect', () => {
    const run = promtool(['test', 'rules', 'offersync-rules.promtool.yaml'], { cwd: import.meta.dirname });
    expect(run.output).toMatch(/SUCCESS/);
    expect(run.status).toBe(0);
  });

  it('gives every alert a for:, a severity, and a summary and description naming the seller', () => {
    const rules = parse(readFileSync(join(root, 'deploy/prometheus/offersync-rules.yaml'), 'utf8')) as {
      groups: {
        rules: { alert: string; for?: string; labels?: { severity?: string }; annotations?: Record<string, string> }[];
      }[];
    };
    const all = rules.groups.flatMap((g) => g.rules);
    expect(all.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'OffersyncSellerNotConverged',
        'OffersyncGuardStopped',
        'OffersyncSellerUnclaimed',
        'OffersyncRateLimited',
        'OffersyncMarketplaceUnreadable',
      ]),
    );
    for (const r of all) {
      expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      expect(r.annotations?.description, r.alert).toBeTruthy();
      // An alert per seller names it; the one for no replica at all has no seller to name.
      if (r.alert !== 'OffersyncNoReplica') {
        expect(r.annotations?.summary, r.alert).toContain('{{ $labels.seller }}');
        expect(r.annotations?.description, r.alert).toContain('{{ $labels.seller }}');
      }
    }
  });
});

describe('deploy/grafana/offersync.json', () => {
  it('is a dashboard Grafana imports: schemaVersion, a Prometheus datasource variable, a seller variable', () => {
    const d = JSON.parse(readFileSync(join(root, 'deploy/grafana/offersync.json'), 'utf8')) as {
      schemaVersion: number;
      uid: string;
      templating: { list: { name: string; type: string; query: unknown }[] };
      panels: { id: number; type: string; datasource?: { uid: string }; gridPos: object }[];
    };
    expect(d.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(d.uid).toMatch(/^[\w-]{1,40}$/);
    const vars = new Map(d.templating.list.map((v) => [v.name, v]));
    expect(vars.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(vars.get('seller')?.type).toBe('query');
    const panels = d.panels.filter((p) => p.type !== 'row');
    expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length);
    for (const p of panels) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a JS template
      expect(p.datasource?.uid).toBe('${datasource}');
      expect(p.gridPos).toBeTruthy();
    }
  });
});
