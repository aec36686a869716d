// `offersync sales` for people: one row per sale, oldest first, with what sold, its title and its price as money,
// and a plain sentence when there was none. Scripts take `--json`, the lines of sold.jsonl.
import type { SoldEntry } from '../sales/sold-log.ts';
import { escapeControls } from '../log/terminal-text.ts';
import { showPrice } from './show-value.ts';

const TITLE_WIDTH = 40;

/** Local time to the minute, as a person reads it: 2026-11-28 14:05. */
export function localMinute(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

function what(e: SoldEntry): string {
  if (e.quantity !== undefined) return `${e.quantity} unit${e.quantity === 1 ? '' : 's'}`;
  return e.status;
}

function cut(s: string, width: number): string {
  return s.length > width ? `${s.slice(0, width - 3)}...` : s;
}

/** The table, or "No sales since ..." when there is none. */
export function formatSales(
  rows: readonly { readonly seller: string; readonly entry: SoldEntry; readonly seenAt: number }[],
  sinceMs: number,
  showSeller: boolean,
): string {
  if (rows.length === 0) return `No sales since ${localMinute(sinceMs)}.\n`;
  const header = ['SEEN', ...(showSeller ? ['SELLER'] : []), 'KIND', 'EXTERNAL_ID', 'TITLE', 'SOLD', 'PRICE'];
  const table = rows.map(({ seller, entry: e, seenAt }) => [
    localMinute(seenAt),
    ...(showSeller ? [seller] : []),
    e.kind,
    e.external_id,
    cut(e.title ?? '', TITLE_WIDTH),
    what(e),
    e.price === null ? '' : showPrice(e.price, e.currency ?? undefined),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const units = rows.reduce((n, r) => n + (r.entry.quantity ?? 1), 0);
  const summary = `${rows.length} sale(s), ${units} unit(s) or account(s), since ${localMinute(sinceMs)}.`;
  // Titles and external_ids are the seller's data and may hold control characters.
  return `${[line(header), ...table.map(line), summary].map(escapeControls).join('\n')}\n`;
}
