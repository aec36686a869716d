// What a run could not see or would not touch: a list read in part, a file quarantined, an offer invalid or held.
// A plan that says "No changes" while any of these is true would be an all-clear that is not true.
import type { CatalogueView } from '../plan/catalogue-view.ts';
import type { NoopReason, Plan } from '../plan/plan-actions.ts';

/** Noops that leave an offer different from its catalogue entry: the run holds it back, it is not in sync. */
const HELD: readonly NoopReason[] = ['blocked', 'backoff', 'parked', 'unconfirmed'];

/** One sentence each, for a person; empty when the run saw everything. */
export function blindSpots(plan: Plan, catalogue: CatalogueView): string[] {
  const out: string[] = [...plan.archiveSuppressed];
  const quarantined = quarantineNote(catalogue.quarantinedFiles);
  if (quarantined) out.push(quarantined);
  const errors = catalogue.problems.filter((p) => p.severity === 'error' && p.externalId === undefined).length;
  if (catalogue.invalidOffers.length > 0 || errors > 0) {
    const parts = [
      ...(catalogue.invalidOffers.length > 0 ? [count(catalogue.invalidOffers.length, 'invalid offer')] : []),
      ...(errors > 0 ? [count(errors, 'error of a whole file or folder', 'errors of whole files or folders')] : []),
    ];
    out.push(`the catalogue has ${parts.join(' and ')}: not sent; offersync validate lists them`);
  }
  const held = plan.actions.filter((a) => a.type === 'noop' && HELD.includes(a.reason)).length;
  if (held > 0) out.push(`${count(held, 'offer')} held back (blocked, in backoff or unconfirmed): see above`);
  return out;
}

/** The sentence for quarantined files, which a run's report also carries. */
export function quarantineNote(files: readonly string[]): string | undefined {
  if (files.length === 0) return undefined;
  const shown = files.slice(0, 5).join(', ');
  const more = files.length > 5 ? ` and ${files.length - 5} more` : '';
  return (
    `${count(files.length, 'catalogue file')} quarantined (${shown}${more}): its offers are left as ` +
    'they are; offersync validate says why'
  );
}

/** Whether a report's message says the run could not see part of either side (then it is no all-clear). */
export function isBlindSpotMessage(m: string): boolean {
  return /^\d+ catalogue files? quarantined \(/.test(m) || / could not be read completely/.test(m);
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
