// What a run did, one outcome per offer: read like kysely's migrator results, reported instead of thrown.
import type { OfferKind } from '../catalogue/desired-offer.ts';
import type { UnitSale } from './unit-sale.ts';

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
  'failed',
  'skipped',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

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
