// What a run did, one outcome per offer: read like kysely's migrator results, reported instead of thrown.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { UnitSale } from '../../sales/unit-sale.ts';
import type { UrgentKind } from '../plan/plan-actions.ts';

export const OUTCOMES = [
  'created',
  'updated',
  'archived',
  'adopted',
  'uploaded',
  'unchanged',
  'sold',
  'blocked',
  /** Refused by the marketplace before and held back by its backoff: not sent this run. */
  'held',
  /** Its catalogue entry has errors: nothing was sent for it (never 'failed', which is a refused write). */
  'invalid',
  'failed',
  'skipped',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Outcomes that leave the run partial (exit 1): the seller has something to fix or to wait for. */
export const NEEDS_ATTENTION: ReadonlySet<Outcome> = new Set<Outcome>(['failed', 'invalid', 'blocked', 'held']);

export interface OfferOutcome {
  /** 'file' for a catalogue file that failed as a whole. */
  readonly kind: OfferKind | 'image' | 'file';
  readonly externalId: string;
  readonly outcome: Outcome;
  /** Catalogue file the offer came from, when known. */
  readonly file?: string;
  /** For failed and blocked: the marketplace's message or offersync's reason, and what to do. */
  readonly message?: string;
  readonly fields?: readonly string[];
  /** Why the plan chose it: an archive's "removed from the catalogue", a create's "new in the catalogue". */
  readonly reason?: string;
  /** An update's fields, old -> new, as planned (never a credential: those show as changed only). */
  readonly changes?: readonly ShownChange[];
  /**
   * A create's title and price (cents) as read from the catalogue, so the seller sees how they were read; the
   * title of an offer sold since the last run.
   */
  readonly title?: string;
  /** Sold (refunded, processing) since the last run, not only still so: the seller has something to hand over. */
  readonly newSale?: true;
  /** A blocked offer that needs the seller at once (its own webhook event): what it is. */
  readonly urgent?: UrgentKind;
  /** The marketplace's id of a newly sold offer. */
  readonly remoteId?: number;
  readonly price?: number;
  readonly currency?: string;
}

/** One field of an update as the seller reads it; `from` is what the marketplace showed or was last sent. */
export interface ShownChange {
  readonly field: string;
  readonly from: unknown;
  readonly to: unknown;
  /** Edited on the website since offersync sent it: the catalogue's value was sent back. */
  readonly patchedBack?: true;
}

export interface RunReport {
  readonly runId: string;
  readonly outcome: 'converged' | 'partial' | 'failed' | 'aborted' | 'stopped' | 'planned';
  readonly outcomes: readonly OfferOutcome[];
  /** Counts per kind and outcome, e.g. counts.account.created. */
  readonly counts: Readonly<Record<string, Readonly<Record<Outcome, number>>>>;
  readonly requests: number;
  readonly durationMs: number;
  readonly messages: readonly string[];
  /** Units of items and top-ups the marketplace sold since the last run (a plan: would be recorded). */
  readonly sales: readonly UnitSale[];
}

export function countOutcomes(outcomes: readonly OfferOutcome[]): Record<string, Record<Outcome, number>> {
  const counts: Record<string, Record<Outcome, number>> = {};
  for (const o of outcomes) {
    const row = counts[o.kind] ?? (Object.fromEntries(OUTCOMES.map((k) => [k, 0])) as Record<Outcome, number>);
    counts[o.kind] = row;
    row[o.outcome]++;
  }
  return counts;
}

/** Flattened for the runs table: "account.created" -> n. */
export function flatCounts(counts: RunReport['counts']): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, row] of Object.entries(counts))
    for (const [k, n] of Object.entries(row)) if (n > 0) out[`${kind}.${k}`] = n;
  return out;
}

/**
 * Which outcome an offer keeps when a run reported it more than once (a duplicated external_id is two catalogue
 * errors and a noop): the one that says most about what the seller must do.
 */
const PRECEDENCE: readonly Outcome[] = [
  'failed',
  'invalid',
  'blocked',
  'held',
  'created',
  'updated',
  'archived',
  'adopted',
  'sold',
  'uploaded',
  'skipped',
  'unchanged',
];

/**
 * One outcome per offer (kind and external_id), so that each is counted once whatever went wrong: the most telling
 * outcome, in the place the offer was first reported. Messages of the same outcome are joined (two errors of one
 * entry), except the same message about another place (a duplicated external_id, reported at each line): then the
 * places are joined. Whole-file problems ('file') stay one per file and line.
 */
export function oneOutcomePerOffer(outcomes: readonly OfferOutcome[]): OfferOutcome[] {
  const rank = (x: OfferOutcome) => PRECEDENCE.indexOf(x.outcome);
  const out: OfferOutcome[] = [];
  // Each offer's place in `out`, by kind then external_id: no key string made and hashed per offer.
  const at = new Map<OfferOutcome['kind'], Map<string, number>>();
  for (const o of outcomes) {
    if (o.kind === 'file') {
      out.push(o);
      continue;
    }
    const ofKind = at.get(o.kind) ?? new Map<string, number>();
    at.set(o.kind, ofKind);
    const i = ofKind.get(o.externalId);
    const was = i === undefined ? undefined : out[i];
    if (i === undefined || was === undefined) {
      ofKind.set(o.externalId, out.length);
      out.push(o);
    } else if (rank(o) < rank(was)) out[i] = o;
    else if (o.outcome === was.outcome) out[i] = merged(was, o);
  }
  return out;
}

/** A file:line or file:line:column in a message, so that two messages about two places compare equal. */
const PLACE = /\S+\.[A-Za-z0-9]+:\d+(?::\d+)?/g;

function merged(was: OfferOutcome, o: OfferOutcome): OfferOutcome {
  if (!o.message || !was.message) return was.message ? was : { ...was, message: o.message };
  const file = o.file && o.file !== was.file ? { file: was.file ? `${was.file}, ${o.file}` : o.file } : {};
  if (was.message.replace(PLACE, '') === o.message.replace(PLACE, '')) return { ...was, ...file };
  return { ...was, ...file, message: `${was.message}; ${o.message}` };
}

/** An offer the marketplace marked sold, as a person reads it: `account acc-1 (EUW Gold II): sold, marketplace id 5` */
export function describeOfferSale(o: OfferOutcome): string {
  const title = o.title !== undefined ? ` (${o.title})` : '';
  const id = o.remoteId !== undefined ? `, marketplace id ${o.remoteId}` : '';
  return `${o.kind} ${o.externalId}${title}: ${o.reason ?? 'sold'}${id}`;
}
