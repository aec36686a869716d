// sold.jsonl beside the state db: one line per offer the marketplace sold or refunded, so the seller's
// inventory scripts can learn about the sale (DESIGN.md decision 6).
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface SoldEntry {
  readonly kind: string;
  readonly external_id: string;
  readonly id: number;
  readonly status: string;
  readonly sold_at: string | null;
  readonly seen_at: string;
}

export function soldLogPath(statePath: string): string | null {
  return statePath === ':memory:' ? null : join(dirname(statePath), 'sold.jsonl');
}

export function appendSold(statePath: string, entries: readonly SoldEntry[]): void {
  const path = soldLogPath(statePath);
  if (!path || entries.length === 0) return;
  appendFileSync(path, entries.map((e) => JSON.stringify(e)).join('\n') + '\n', { mode: 0o600 });
}
