// The run summary: a table per kind, then every offer that failed or was blocked, with its file and why.
import { escapeLines } from '../log/terminal-text.ts';
import { OUTCOMES, type Outcome, type RunReport } from '../sync/run-report.ts';
import { describeSale } from '../sync/unit-sale.ts';

// Every outcome is a column (held included), in the order the report defines them.
const COLUMNS: readonly Outcome[] = OUTCOMES;
const KIND_TITLE: Record<string, string> = {
  account: 'accounts',
  item: 'items',
  topup: 'top-ups',
  image: 'images',
  file: 'files',
};

export function formatReport(report: RunReport): string {
  const kinds = Object.keys(report.counts).sort(
    (a, b) => Object.keys(KIND_TITLE).indexOf(a) - Object.keys(KIND_TITLE).indexOf(b),
  );
  const cols = COLUMNS.filter((c) => kinds.some((k) => (report.counts[k]?.[c] ?? 0) > 0));
  const out: string[] = [];
  if (kinds.length > 0 && cols.length > 0) {
    const header = ['', ...cols];
    const rows = kinds.map((k) => [KIND_TITLE[k] ?? k, ...cols.map((c) => String(report.counts[k]?.[c] ?? 0))]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: readonly string[]) =>
      r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    out.push(line(header), ...rows.map(line), '');
  }
  const problems = report.outcomes.filter(
    (o) => o.outcome === 'failed' || o.outcome === 'blocked' || o.outcome === 'held',
  );
  if (problems.length > 0) {
    out.push('Needs attention:');
    for (const o of problems.slice(0, 200)) {
      const where = o.file ? ` (${o.file})` : '';
      const fields = o.fields && o.fields.length > 0 ? ` [${o.fields.join(', ')}]` : '';
      out.push(
        `  ${o.outcome.toUpperCase()} ${KIND_TITLE[o.kind] ?? o.kind} ${o.externalId}${where}${fields}: ` +
          `${o.message ?? ''}`,
      );
    }
    if (problems.length > 200) out.push(`  ... and ${problems.length - 200} more (--json lists them all)`);
    out.push('');
  }
  const sold = report.outcomes.filter((o) => o.outcome === 'sold');
  if (sold.length > 0)
    out.push(`${sold.length} offer(s) sold, refunded or processing on the marketplace: left alone (see sold.jsonl).`);
  if (report.sales.length > 0) {
    const units = report.sales.reduce((n, s) => n + s.quantity, 0);
    out.push(`Sold since the last run: ${units} unit(s) of ${report.sales.length} offer(s) (see sold.jsonl):`);
    for (const s of report.sales.slice(0, 20)) out.push(`  ${describeSale(s)}`);
    if (report.sales.length > 20) out.push(`  ... and ${report.sales.length - 20} more (--json lists them all)`);
  }
  for (const m of report.messages) out.push(m);
  const verdict: Record<RunReport['outcome'], string> = {
    converged: report.messages.some((m) => m.startsWith('targeted run ('))
      ? 'Converged: the targeted offers on the marketplace match the catalogue.'
      : 'Converged: the marketplace matches the catalogue.',
    partial: 'Some offers could not be synced (listed above); the rest is done. Run again after fixing them.',
    failed: 'The run failed.',
    aborted: 'Stopped before the first write.',
    stopped: 'Stopped: no further write was started; those in flight finished. Run again to finish the rest.',
    planned: 'Planned only: nothing was sent.',
  };
  out.push(
    `${verdict[report.outcome]} ${report.requests} request(s) in ${(report.durationMs / 1000).toFixed(1)} s (run ` +
      `${report.runId}).`,
  );
  // Each line escaped: a message or an external_id is data, and may hold control characters.
  return escapeLines(out);
}
