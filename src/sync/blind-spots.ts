// What a run could not see or would not touch: a list read in part, a file quarantined, an offer invalid or held.
// A plan that says "No changes" while any of these is true would be an all-clear that is not true.
import type { CatalogueView } from './catalogue-view.ts';
import type { NoopReason, Plan } from './plan.ts';

/** Noops that leave an offer different from its catalogue entry: the run holds it back, it is not in sync. */
const HELD: readonly NoopReason[] = ['blocked', 'backoff', 'parked', 'unconfirmed'];

/** One sentence each, for a person; empty when the run saw everything. */
export function blindSpots(plan: Plan, catalogue: CatalogueView): string[] {
  const out: string[] = [...plan.archiveSuppressed];
  const quarantined = catalogue.quarantinedFiles;
  if (quarantined.length > 0) {
    const shown = quarantined.slice(0, 5).join(', ');
    const more = quarantined.length > 5 ? ` and ${quarantined.length - 5} more` : '';
    out.push(
      `${count(quarantined.length, 'catalogue file')} quarantined (${shown}${more}): its offers are left as ` +
        'they are; offersync validate says why',
    );
  }
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

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
