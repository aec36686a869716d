// The run summary, as `terraform apply` prints one: every offer created, updated (field: old -> new), archived (with
// its reason), invalid, failed, blocked or held, by external_id, grouped by kind; then sales and notes; then one
// closing line with the counts. A long run is cut after a screenful; its report file holds every offer.
import { escapeLines } from '../log/terminal-text.ts';
import { isBlindSpotMessage } from '../sync/report/blind-spots.ts';
import {
  describeOfferSale,
  NEEDS_ATTENTION,
  type OfferOutcome,
  type Outcome,
  type RunReport,
} from '../sync/report/run-report.ts';
import { describeSale } from '../sales/unit-sale.ts';
import { showField, showPrice, showValue } from './show-value.ts';

const KIND_TITLE: Readonly<Record<OfferOutcome['kind'], string>> = {
  account: 'Accounts',
  item: 'Items',
  topup: 'Top-ups',
  image: 'Images',
  file: 'Files',
};
const KIND_ORDER = Object.keys(KIND_TITLE) as OfferOutcome['kind'][];

/** What is listed offer by offer: what needs the seller first, then what was done. */
const LISTED: readonly Outcome[] = [
  'invalid',
  'failed',
  'blocked',
  'held',
  'created',
  'updated',
  'archived',
  'adopted',
  'uploaded',
];
/** The closing line's order. */
const COUNTED: readonly Outcome[] = [
  'created',
  'updated',
  'archived',
  'adopted',
  'uploaded',
  'unchanged',
  'sold',
  'invalid',
  'failed',
  'blocked',
  'held',
  'skipped',
];
const MARK: Readonly<Record<Outcome, string>> = {
  created: '+ created ',
  updated: '~ updated ',
  archived: '- archived',
  adopted: '= adopted ',
  uploaded: '+ uploaded',
  unchanged: '  unchanged',
  sold: '  sold    ',
  blocked: '! BLOCKED ',
  held: '! HELD    ',
  invalid: '! INVALID ',
  failed: '! FAILED  ',
  skipped: '  skipped ',
};

export interface ReportFormat {
  /** Offers listed before the rest is left to the report file. Default 50. */
  readonly limit?: number;
  /** Where the full list is: the command that shows it. Default `offersync status --run <id>`. */
  readonly fullList?: string;
}

export const REPORT_LIMIT = 50;

export function formatReport(report: RunReport, format: ReportFormat = {}): string {
  const limit = format.limit ?? REPORT_LIMIT;
  const out: string[] = [];
  const listed = report.outcomes.filter((o) => LISTED.includes(o.outcome));
  let shown = 0;
  for (const kind of KIND_ORDER) {
    const mine = listed
      .filter((o) => o.kind === kind)
      .sort((a, b) => LISTED.indexOf(a.outcome) - LISTED.indexOf(b.outcome));
    if (mine.length === 0 || shown >= limit) continue;
    out.push(`${KIND_TITLE[kind]}:`);
    for (const o of mine.slice(0, limit - shown)) out.push(...offerLines(o));
    shown += Math.min(mine.length, limit - shown);
    out.push('');
  }
  if (listed.length > shown)
    out.push(
      `... and ${listed.length - shown} more: see ${format.fullList ?? `offersync status --run ${report.runId}`}`,
      '',
    );
  const sold = report.outcomes.filter((o) => o.outcome === 'sold');
  const newly = sold.filter((o) => o.newSale);
  if (newly.length > 0) {
    // Named one by one: the seller hands over the account that was bought, and needs to know which.
    out.push('Sold since the last run, left alone (see sold.jsonl):');
    for (const o of newly.slice(0, 20)) out.push(`  ${describeOfferSale(o)}`);
    if (newly.length > 20) out.push(`  ... and ${newly.length - 20} more (--json lists them all)`);
  }
  const before = sold.length - newly.length;
  if (before > 0) out.push(`${before} offer(s) sold, refunded or processing before this run: left alone.`);
  if (report.sales.length > 0) {
    const units = report.sales.reduce((n, s) => n + s.quantity, 0);
    out.push(`Sold since the last run: ${units} unit(s) of ${report.sales.length} offer(s) (see sold.jsonl):`);
    for (const s of report.sales.slice(0, 20)) out.push(`  ${describeSale(s)}`);
    if (report.sales.length > 20) out.push(`  ... and ${report.sales.length - 20} more (--json lists them all)`);
  }
  for (const m of report.messages) out.push(m);
  out.push(closingLine(report));
  // Each line escaped: a message or an external_id is data, and may hold control characters.
  return escapeLines(out);
}

function offerLines(o: OfferOutcome): string[] {
  const id = `  ${MARK[o.outcome]} ${o.externalId}`;
  switch (o.outcome) {
    case 'created': {
      const what = [
        o.title !== undefined ? showValue(o.title) : undefined,
        o.price !== undefined ? showPrice(o.price, o.currency) : undefined,
      ].filter((x) => x !== undefined);
      return [`${id}  ${what.join(', ')}${o.file ? `  (${o.file})` : ''}`];
    }
    case 'updated':
      return [
        `${id}${o.file ? `  (${o.file})` : ''}`,
        ...(o.changes ?? []).map((c) =>
          c.field === 'credentials'
            ? '      credentials: changed (not shown)'
            : `      ${c.field}: ${showField(c.field, c.from)} -> ${showField(c.field, c.to)}${
                c.patchedBack ? '  (edited on the marketplace: patched back)' : ''
              }`,
        ),
      ];
    case 'archived':
      return [`${id}  (${o.reason ?? o.message ?? 'archived'})`];
    default: {
      const fields = o.fields && o.fields.length > 0 ? ` [${o.fields.join(', ')}]` : '';
      const where = o.file ? `  (${o.file})` : '';
      const why = NEEDS_ATTENTION.has(o.outcome) && o.message ? `: ${o.message}` : '';
      return [`${id}${where}${fields}${why}`];
    }
  }
}

const VERDICT: Readonly<Record<RunReport['outcome'], string>> = {
  converged: 'Converged: the marketplace matches the catalogue.',
  partial: 'Some offers need attention (listed above); the rest is done.',
  failed: 'The run failed.',
  aborted: 'Stopped before the first write.',
  stopped: 'Stopped: no further write was started; those in flight finished. Run again to finish the rest.',
  planned: 'Planned only: nothing was sent.',
};

/** The verdict, the counts of every offer (each once), the requests and the run id: one line. */
export function closingLine(report: RunReport): string {
  const totals = new Map<Outcome, number>();
  for (const row of Object.values(report.counts))
    for (const o of COUNTED) totals.set(o, (totals.get(o) ?? 0) + (row[o] ?? 0));
  const counts = COUNTED.filter((o) => (totals.get(o) ?? 0) > 0).map((o) => `${totals.get(o)} ${o}`);
  const verdict =
    report.outcome === 'converged' && report.messages.some(isBlindSpotMessage)
      ? 'Done for what could be read, but no all-clear: part of the catalogue or the marketplace was not seen ' +
        '(see above).'
      : report.outcome === 'converged' && report.messages.some((m) => m.startsWith('targeted run ('))
        ? 'Converged: the targeted offers on the marketplace match the catalogue.'
        : VERDICT[report.outcome];
  return (
    `${verdict} ${counts.length > 0 ? `${counts.join(', ')}; ` : ''}${report.requests} request(s) in ` +
    `${(report.durationMs / 1000).toFixed(1)} s (run ${report.runId}).`
  );
}
