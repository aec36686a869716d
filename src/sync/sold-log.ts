// sold.jsonl beside the state db: one line per offer the marketplace sold or refunded, and one per sale of units of
// an item or top-up (with its quantity), so the seller's inventory scripts can learn about the sale
// (docs/architecture.md, Ownership and Sales). Rotated so that months of sales stay bounded: past SOLD_LOG_MAX_BYTES
// the file becomes sold.jsonl.1 (replacing the one before) and a new one starts.
import { appendFileSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface SoldEntry {
  readonly kind: string;
  readonly external_id: string;
  readonly id: number;
  readonly status: string;
  readonly sold_at: string | null;
  readonly seen_at: string;
  /** Items and top-ups: the units sold since the last run. */
  readonly quantity?: number;
  readonly title?: string | null;
}

export const SOLD_LOG_MAX_BYTES = 8 * 1024 * 1024;

export function soldLogPath(statePath: string): string | null {
  return statePath === ':memory:' ? null : join(dirname(statePath), 'sold.jsonl');
}

export function appendSold(statePath: string, entries: readonly SoldEntry[], maxBytes = SOLD_LOG_MAX_BYTES): void {
  const path = soldLogPath(statePath);
  if (!path || entries.length === 0) return;
  const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  if (size >= maxBytes) renameSync(path, `${path}.1`);
  appendFileSync(path, `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`, { mode: 0o600 });
}
