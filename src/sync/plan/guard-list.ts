// What the mass-archive guard held back, said once: the first few offers by name in the run's summary, and all
// of them in a file beside the state db (guard-<run id>.txt, one "kind external_id" a line), for a seller who
// wants to check the whole list before running again with --allow-mass-archive.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GuardVerdict } from './plan-actions.ts';
import { formatCents, type PriceGuardVerdict } from './price-guard.ts';

/** Offers named in the summary line; the file has them all. */
export const GUARD_NAMES_SHOWN = 10;

export function guardListPath(statePath: string, runId: string, name = 'guard'): string | null {
  return statePath === ':memory:' || statePath.includes('://')
    ? null
    : join(dirname(statePath), `${name}-${runId}.txt`);
}

/** As guardHeldMessage, for the price guard: price-guard-<run id>.txt, one "kind external_id old -> new" a line. */
export function priceGuardHeldMessage(guard: PriceGuardVerdict, statePath: string, runId: string): string | undefined {
  if (!guard.tripped || guard.suspect.length === 0) return undefined;
  const line = (c: PriceGuardVerdict['suspect'][number]) =>
    `${c.kind} ${c.externalId} ${formatCents(c.from)} -> ${formatCents(c.to)}`;
  const names = guard.suspect.slice(0, GUARD_NAMES_SHOWN).map(line);
  const more = guard.suspect.length > names.length ? ` and ${guard.suspect.length - names.length} more` : '';
  let where = '';
  const path = guardListPath(statePath, runId, 'price-guard');
  if (path) {
    try {
      writeFileSync(path, guard.suspect.map((c) => `${line(c)}\n`).join(''), { mode: 0o600 });
      where = `; all ${guard.suspect.length} are listed in ${path}`;
    } catch {
      // A list that cannot be written (a read-only folder): the summary names the first few all the same.
    }
  }
  return `held back by the price guard (not sent): ${names.join(', ')}${more}${where}`;
}

/** Writes the file (when the state is a file) and returns the summary line. */
export function guardHeldMessage(guard: GuardVerdict, statePath: string, runId: string): string | undefined {
  const held = guard.held ?? [];
  if (!guard.tripped || held.length === 0) return undefined;
  const names = held.slice(0, GUARD_NAMES_SHOWN).map((o) => `${o.kind} ${o.externalId}`);
  const more = held.length > names.length ? ` and ${held.length - names.length} more` : '';
  let where = '';
  const path = guardListPath(statePath, runId);
  if (path) {
    try {
      writeFileSync(path, held.map((o) => `${o.kind} ${o.externalId}\n`).join(''), { mode: 0o600 });
      where = `; all ${held.length} are listed in ${path}`;
    } catch {
      // A list that cannot be written (a read-only folder): the summary names the first few all the same.
    }
  }
  return `held back by the guard (not archived): ${names.join(', ')}${more}${where}`;
}
