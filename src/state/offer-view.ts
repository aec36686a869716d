// What a run's planning reads of the state: one offer by its key, or every offer in turn, synchronously (the
// planner awaits nothing). A sqlite file answers row by row as asked, so a run of 100,000 offers never holds all
// their records at once; PostgreSQL, where a point read is a round trip, is read beforehand in keyset pages into
// compact records (postgres-state-database.ts); tests answer from records they made.
import type { OfferRecord, StateKind } from './records.ts';

export interface OfferView {
  get(kind: StateKind, externalId: string): OfferRecord | undefined;
  /** Many at once, in the order asked (undefined where the state has none): one query per batch, not per offer. */
  getMany(keys: readonly OfferKeyPair[]): (OfferRecord | undefined)[];
  /** Every offer, in (kind, external_id) order. Read nothing else of the store until the loop has ended. */
  all(): Iterable<OfferRecord>;
  /** The key of every offer, in the same order: cheaper than `all` when few records are wanted whole. */
  keys(): Iterable<OfferKeyPair>;
  /** Managed offers not archived on the marketplace: the base of the mass-archive guard. */
  countManaged(): number;
}

export type OfferKeyPair = readonly [kind: StateKind, externalId: string];

export function isManagedListed(r: OfferRecord): boolean {
  return r.managed && r.remoteStatus !== 'archived';
}

/** A view over records already read (a PostgreSQL listing, a test's table). */
export function offerViewOf(records: readonly OfferRecord[]): OfferView {
  const byKey = new Map<string, OfferRecord>();
  for (const r of records) byKey.set(`${r.kind}:${r.externalId}`, r);
  return {
    get: (kind, externalId) => byKey.get(`${kind}:${externalId}`),
    getMany: (keys) => keys.map(([kind, externalId]) => byKey.get(`${kind}:${externalId}`)),
    all: () => records,
    keys: () => records.map((r) => [r.kind, r.externalId] as const),
    countManaged: () => records.filter(isManagedListed).length,
  };
}

/** The planner and the list reader take either. */
export function asOfferView(state: readonly OfferRecord[] | OfferView): OfferView {
  return Array.isArray(state) ? offerViewOf(state) : (state as OfferView);
}
