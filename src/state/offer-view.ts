// What a run's reading of the state asks of it: offers by key, a page of keys at a time, or every key in turn,
// in keyset pages. Both databases answer page by page as asked (a sqlite file from its own statements,
// PostgreSQL with one round trip a page, never one per offer), so a run of 100,000 offers never holds all their
// records at once; tests answer from records they made.
import type { OfferRecord, StateKind } from './records.ts';

export interface OfferView {
  /** One offer by its key; a loop asks getMany instead. */
  get(kind: StateKind, externalId: string): Promise<OfferRecord | undefined>;
  /** Many at once, in the order asked (undefined where the state has none): one query per page, not per offer. */
  getMany(keys: readonly OfferKeyPair[]): Promise<(OfferRecord | undefined)[]>;
  /** The key of every offer in (kind, external_id) order, a page at a time. */
  keyPages(): AsyncIterable<readonly OfferKeyPair[]>;
  /** Every offer whole, in the same order and pages: only for a reader that wants most of them. */
  pages(): AsyncIterable<readonly OfferRecord[]>;
  /** Managed offers not archived on the marketplace: the base of the mass-archive guard. */
  countManaged(): Promise<number>;
}

export type OfferKeyPair = readonly [kind: StateKind, externalId: string];

/** Offers per page of keys or records, and per lookup the readers of a view ask for. */
export const VIEW_PAGE = 2000;

export function isManagedListed(r: OfferRecord): boolean {
  return r.managed && r.remoteStatus !== 'archived';
}

/** A view over records already read (a test's table), in the order given. */
export function offerViewOf(records: readonly OfferRecord[]): OfferView {
  const byKey = new Map<string, OfferRecord>();
  for (const r of records) byKey.set(`${r.kind}:${r.externalId}`, r);
  return {
    get: async (kind, externalId) => byKey.get(`${kind}:${externalId}`),
    getMany: async (keys) => keys.map(([kind, externalId]) => byKey.get(`${kind}:${externalId}`)),
    async *keyPages() {
      for (let i = 0; i < records.length; i += VIEW_PAGE)
        yield records.slice(i, i + VIEW_PAGE).map((r) => [r.kind, r.externalId] as const);
    },
    async *pages() {
      for (let i = 0; i < records.length; i += VIEW_PAGE) yield records.slice(i, i + VIEW_PAGE);
    },
    countManaged: async () => records.filter(isManagedListed).length,
  };
}

/** The planner and the list reader take either. */
export function asOfferView(state: readonly OfferRecord[] | OfferView): OfferView {
  return Array.isArray(state) ? offerViewOf(state) : (state as OfferView);
}
