// The catalogue's identity bookkeeping (docs/architecture.md, Identity): every record whose identity is known, by
// its conflict group (kind and external_id as the marketplace compares it: identity.ts, collationKey), across every
// file read. Two records in one group are a conflict, an error at each place, and none of them is synced until it is
// fixed.
import type { CatalogueProblem } from './catalogue-problem.ts';
import type { DesiredOffer, OfferKind, SourceLocation } from './desired-offer.ts';
import { collationKey, conflictGroup, offerKey } from './identity.ts';

/** A record whose identity is known but which is not an offer (it has an error): the identity rules still count it. */
export interface InvalidEntry {
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly source: SourceLocation;
  readonly hash?: undefined;
}

/** A record with a known identity: the offer itself when valid, so that 100k offers cost no second object each. */
export type Entry = DesiredOffer | InvalidEntry;

export const isOffer = (e: Entry): e is DesiredOffer => e.hash !== undefined;

/** Conflict group: kind and the external_id's collation key (docs/architecture.md, Identity). */
export const groupOf = (e: Entry): string => conflictGroup(e.kind, e.externalId);

/** A conflict group by its parts, to look it up. */
export interface GroupRef {
  readonly kind: OfferKind;
  /** The external_id's collation key. */
  readonly id: string;
}

export class ConflictIndex {
  /**
   * Entries by kind and the external_id's collation key (the conflict group): one entry, or several in conflict.
   * Keyed per kind so that an external_id that is its own key is not a second string.
   */
  private readonly groups: { readonly [K in OfferKind]: Map<string, Entry | Entry[]> } = {
    account: new Map(),
    item: new Map(),
    topup: new Map(),
  };
  /** The conflict groups with more than one entry, by conflictGroup(). */
  private readonly conflicted = new Map<string, GroupRef>();

  clear(): void {
    for (const g of Object.values(this.groups)) g.clear();
    this.conflicted.clear();
  }

  /** Counts the entries of a file read. */
  add(entries: readonly Entry[]): void {
    for (const e of entries) {
      const byId = this.groups[e.kind];
      const id = collationKey(e.externalId);
      const had = byId.get(id);
      if (had === undefined) byId.set(id, e);
      else {
        byId.set(id, Array.isArray(had) ? [...had, e] : [had, e]);
        this.conflicted.set(groupOf(e), { kind: e.kind, id });
      }
    }
  }

  /** Forgets the entries of a file dropped (removed, or about to be read again). */
  remove(entries: readonly Entry[]): void {
    for (const e of entries) {
      const byId = this.groups[e.kind];
      const id = collationKey(e.externalId);
      const had = byId.get(id);
      if (had === undefined) continue;
      const rest = Array.isArray(had) ? had.filter((x) => x !== e) : had === e ? [] : [had];
      if (rest.length === 0) byId.delete(id);
      else byId.set(id, rest.length === 1 ? rest[0]! : rest);
      if (rest.length <= 1) this.conflicted.delete(groupOf(e));
    }
  }

  /** Whether the entry shares its conflict group with another: then it is not synced. */
  inConflict(e: Entry): boolean {
    return this.conflicted.size > 0 && this.conflicted.has(groupOf(e));
  }

  /** key -> hash of the valid offers of these conflict groups. */
  validIn(groups: ReadonlyMap<string, GroupRef>): Map<string, string> {
    const out = new Map<string, string>();
    for (const { kind, id } of groups.values()) {
      const e = this.groups[kind].get(id);
      if (e && !Array.isArray(e) && isOffer(e)) out.set(offerKey(e.kind, e.externalId), e.hash);
    }
    return out;
  }

  /** An error at each entry of each conflict, the groups in a stable order. */
  problems(): CatalogueProblem[] {
    const problems: CatalogueProblem[] = [];
    for (const g of [...this.conflicted.keys()].sort()) {
      const { kind, id } = this.conflicted.get(g)!;
      problems.push(...duplicateProblems(this.entriesOf(kind, id)));
    }
    return problems;
  }

  private entriesOf(kind: OfferKind, id: string): readonly Entry[] {
    const e = this.groups[kind].get(id);
    return e === undefined ? [] : Array.isArray(e) ? e : [e];
  }
}

function where(s: SourceLocation): string {
  return s.line !== undefined ? `${s.file}:${s.line}` : s.pointer ? `${s.file}#${s.pointer}` : s.file;
}

function duplicateProblems(entries: readonly Entry[]): CatalogueProblem[] {
  return entries.map((e) => {
    const others = entries.filter((o) => o !== e);
    const exact = others.filter((o) => o.externalId === e.externalId);
    const near = others.filter((o) => o.externalId !== e.externalId);
    const parts: string[] = [];
    if (exact.length > 0)
      parts.push(`duplicate external_id '${e.externalId}': also at ${exact.map((o) => where(o.source)).join(', ')}`);
    if (near.length > 0) {
      parts.push(
        `external_id '${e.externalId}' differs only in letter case, accents or trailing spaces from ` +
          `${near.map((o) => `'${o.externalId}' at ${where(o.source)}`).join(', ')}, which the marketplace takes ` +
          `as the same id`,
      );
    }
    return {
      severity: 'error' as const,
      file: e.source.file,
      ...(e.source.line !== undefined ? { line: e.source.line } : {}),
      ...(e.source.pointer !== undefined ? { pointer: `${e.source.pointer}/external_id` } : {}),
      kind: e.kind,
      externalId: e.externalId,
      field: 'external_id',
      message: `${parts.join('; ')}: each ${e.kind} needs its own external_id (none of them is synced until fixed)`,
    };
  });
}
