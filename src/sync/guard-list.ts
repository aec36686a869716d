// What the mass-archive guard held back, said once: the first few offers by name in the run's summary, and all
// of them in a file beside the state db (guard-<run id>.txt, one "kind external_id" a line), for a seller who
// wants to check the whole list before running again with --allow-mass-archive.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GuardVerdict } from './plan.ts';

/** Offers named in the summary line; the file has them all. */
export const GUARD_NAMES_SHOWN = 10;

export function guardListPath(statePath: string, runId: string): string | null {
  return statePath === ':memory:' || statePath.includes('://') ? null : join(dirname(statePath), `guard-${runId}.txt`);
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
      where = '';
    }
  }
  return `held back by the guard (not archived): ${names.join(', ')}${more}${where}`;
}
