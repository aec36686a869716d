// `offersync pull`: the marketplace's offers of one kind as catalogue records. Pure. Each record is read back
// through the catalogue's own normaliser and diffed against the live offer as a plan with a fresh state db would
// diff it (adoption, nothing last applied): a field that would plan a write is left out and said, so a pulled
// catalogue plans nothing.
import { ACCOUNT_FIELDS, ACCOUNT_STATUSES } from '../catalogue/account-schema.ts';
import type { JsonValue, OfferKind } from '../catalogue/desired-offer.ts';
import type { FieldTable } from '../catalogue/field-spec.ts';
import { ITEM_FIELDS } from '../catalogue/item-schema.ts';
import { normaliseRecord } from '../catalogue/normalise.ts';
import { TOPUP_FIELDS, TOPUP_STATUSES } from '../catalogue/topup-schema.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import { diffFields, liveFieldsOf } from '../sync/fields/diff.ts';
import { isLocked } from '../sync/plan/locked-status.ts';

/** One offer as a catalogue file holds it: field name to value, external_id first, in the field table's order. */
export type CatalogueRecord = { readonly [field: string]: JsonValue };

/** An offer the catalogue cannot take over as it is, and what the seller can do about it. */
export interface LeftOut {
  readonly kind: OfferKind;
  /** The marketplace id; the external_id where it has one. */
  readonly id: number;
  readonly externalId?: string;
  readonly reason: string;
  readonly todo: string;
  /**
   * The next reconcile archives it, since the configuration owns it (sync.prune: all, or sync.ownedPattern) and
   * the catalogue does not hold it: the seller must add it by hand first.
   */
  readonly archivedNextRun: boolean;
}

/** Whether the configuration's prune policy owns an offer by its external_id (docs/architecture.md, Ownership). */
export type OwnsOffer = (externalId: string) => boolean;

/**
 * The gallery of an account as files of the pulled catalogue (paths relative to it), in the account's order; undefined
 * when it has none or some image could not be downloaded (then it keeps its image_ids).
 */
export type GalleryOf = (remote: RemoteOffer) => readonly string[] | undefined;

/** Urls of an account's gallery as its answer gives them: image_urls, when the answer carries no image_ids. */
export function galleryUrls(remote: RemoteOffer): readonly string[] {
  if (Object.hasOwn(remote.fields, 'image_ids')) return [];
  const urls = remote.fields.image_urls;
  return Array.isArray(urls) ? urls.filter((u): u is string => typeof u === 'string') : [];
}

/** A field left out of some records, with why: said once per kind and field, with how many offers. */
export interface FieldNote {
  readonly field: string;
  readonly reason: string;
  readonly offers: number;
}

export interface PulledKind {
  readonly kind: OfferKind;
  /** In marketplace id order. */
  readonly records: readonly CatalogueRecord[];
  readonly leftOut: readonly LeftOut[];
  readonly notes: readonly FieldNote[];
  /** Catalogue fields no offer of this kind came back with: left unmanaged, as they are on the marketplace. */
  readonly notReturned: readonly string[];
}

const TABLES: Readonly<Record<OfferKind, FieldTable>> = {
  account: ACCOUNT_FIELDS,
  item: ITEM_FIELDS,
  topup: TOPUP_FIELDS,
};

/** Statuses a catalogue entry may state, where the kind has a closed list (items take any word). */
const STATUSES: Readonly<Record<OfferKind, readonly string[] | undefined>> = {
  account: ACCOUNT_STATUSES,
  item: undefined,
  topup: TOPUP_STATUSES,
};

/**
 * Catalogue fields a pull can fill: not aliases, not legacy names, not the gallery paths (written from the files
 * downloaded, see pulledOffer), not credentials (the API never returns them) and not parameters (echoed as game_data,
 * under another name than the one sent, so a fresh state db could not tell it unchanged).
 */
const NEVER_PULLED = new Set(['external_id', 'status', 'credentials', 'images', 'parameters']);
export function pullableFields(kind: OfferKind): readonly string[] {
  return Object.entries(TABLES[kind])
    .filter(([name, spec]) => spec.target === undefined && spec.legacy !== true && !NEVER_PULLED.has(name))
    .map(([name]) => name);
}

/** Integer cents as the catalogue's major-unit string ("19.99"): read back as the same cents in every format. */
export function priceText(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

function isJsonValue(v: unknown): v is JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJsonValue);
  if (typeof v === 'object') return Object.values(v as object).every(isJsonValue);
  return false;
}

/** Worth writing: a value, not null, not an empty string or list (an absent field is an unmanaged one). */
function present(v: unknown): v is JsonValue {
  if (v === null || v === undefined || v === '') return false;
  if (Array.isArray(v) && v.length === 0) return false;
  return isJsonValue(v);
}

/** Why the catalogue cannot take this offer over as it is, or undefined. */
function refusal(kind: OfferKind, remote: RemoteOffer): Pick<LeftOut, 'reason' | 'todo'> | undefined {
  const status = remote.status;
  if (isLocked(status))
    return {
      reason: `${status} on the marketplace: the marketplace's own, never touched by offersync`,
      todo: 'nothing: a reconcile records it in sold.jsonl',
    };
  const allowed = STATUSES[kind];
  if (status === undefined || status === '')
    return {
      reason: 'the marketplace gave no status',
      todo: 'add it to the catalogue by hand with the status it should have',
    };
  if (allowed && !allowed.includes(status))
    return {
      reason: `status '${status}', which a catalogue entry cannot state (${allowed.join(', ')})`,
      todo: 'change its status on the website to one of those, then pull again',
    };
  return undefined;
}

type Verdict =
  | { readonly type: 'record'; readonly record: CatalogueRecord; readonly dropped: readonly FieldNote[] }
  | { readonly type: 'left-out'; readonly reason: string; readonly todo: string };

/**
 * One live offer as a catalogue record, checked to plan nothing against itself. An account's gallery, given as
 * files, is written as `images` (uploaded once on another seller; found by content on this one) instead of its
 * image_ids, which name images of this seller only.
 */
export function pulledOffer(kind: OfferKind, remote: RemoteOffer, galleryOf: GalleryOf = () => undefined): Verdict {
  const refused = refusal(kind, remote);
  if (refused) return { type: 'left-out', ...refused };
  const record: Record<string, JsonValue> = { external_id: remote.externalId };
  const gallery = kind === 'account' ? galleryOf(remote) : undefined;
  // Without image_ids in the answer, image_urls are the gallery's own addresses, not urls the seller gave.
  const skipped = new Set(gallery ? ['image_ids', 'image_urls'] : galleryUrls(remote).length > 0 ? ['image_urls'] : []);
  for (const field of pullableFields(kind)) {
    const v = remote.fields[field];
    if (!present(v) || skipped.has(field)) continue;
    record[field] = field === 'price' && typeof v === 'number' && Number.isSafeInteger(v) ? priceText(v) : v;
  }
  if (gallery && gallery.length > 0) record.images = [...gallery];
  record.status = remote.status!;
  const dropped: FieldNote[] = [];
  // Read back as the catalogue reads it, until nothing it reads differs from the live offer.
  for (;;) {
    const read = normaliseRecord(kind, { value: record }, 'pull');
    if (!read.valid) {
      const problems = read.problems.map((p) => p.message).join('; ');
      return {
        type: 'left-out',
        reason: `the catalogue cannot read what the marketplace holds: ${problems}`,
        todo: 'fix the offer on the website, or add it to the catalogue by hand',
      };
    }
    const changes = diffFields({
      desired: read.offer.fields,
      lastApplied: null,
      live: liveFieldsOf(remote),
      lossy: new Set(),
    });
    if (changes.length === 0) return { type: 'record', record, dropped };
    for (const c of changes) {
      if (c.field === 'title' || c.field === 'price' || c.field === 'status' || !Object.hasOwn(record, c.field))
        return {
          type: 'left-out',
          reason: `its ${c.field} would not read back as the marketplace holds it (${JSON.stringify(c.from)})`,
          todo: 'add it to the catalogue by hand',
        };
      const reason = `the catalogue would read ${JSON.stringify(record[c.field])} as ${JSON.stringify(c.to)}`;
      dropped.push({ field: c.field, reason, offers: 1 });
      delete record[c.field];
    }
  }
}

/**
 * Every offer of a kind (as the list returned them) to records, what was left out and why, and notes on fields.
 * An external_id listed twice keeps the lower id, as a reconcile with a fresh state db adopts it.
 */
export function pullKind(
  kind: OfferKind,
  offers: readonly RemoteOffer[],
  owns: OwnsOffer = () => false,
  galleryOf: GalleryOf = () => undefined,
): PulledKind {
  const sorted = [...offers].sort((a, b) => a.id - b.id);
  const first = new Map<string, RemoteOffer>();
  const leftOut: LeftOut[] = [];
  const records: CatalogueRecord[] = [];
  const notes = new Map<string, FieldNote>();
  const returned = new Set<string>();
  for (const remote of sorted) {
    for (const f of Object.keys(remote.fields)) returned.add(f);
    const taken = first.get(remote.externalId);
    if (taken) {
      leftOut.push({
        kind,
        id: remote.id,
        externalId: remote.externalId,
        reason: `external_id listed twice (ids ${taken.id} and ${remote.id}); the catalogue holds id ${taken.id}`,
        todo: `archive id ${remote.id} on the website, or give it an external_id of its own and pull again`,
        // A reconcile sees one offer per external_id (the lower id): the other is neither matched nor archived.
        archivedNextRun: false,
      });
      continue;
    }
    first.set(remote.externalId, remote);
    const verdict = pulledOffer(kind, remote, galleryOf);
    if (verdict.type === 'left-out') {
      const archivable = remote.status !== 'archived' && !isLocked(remote.status) && owns(remote.externalId);
      leftOut.push({
        kind,
        id: remote.id,
        externalId: remote.externalId,
        reason: verdict.reason,
        todo: verdict.todo,
        archivedNextRun: archivable,
      });
      continue;
    }
    records.push(verdict.record);
    for (const d of verdict.dropped) {
      const key = `${d.field}\u0000${d.reason}`;
      const seen = notes.get(key);
      notes.set(key, { ...d, offers: (seen?.offers ?? 0) + 1 });
    }
  }
  if (kind === 'account' && returned.has('game_data')) {
    const offers = sorted.filter((r) => present(r.fields.game_data)).length;
    notes.set('game_data', {
      field: 'parameters',
      reason:
        'echoed as game_data, not under the name it is sent by, so it is left out (its documented keys are ' +
        'the top-level fields: level, current_rank, ...); add it by hand to manage it',
      offers,
    });
  }
  // With no offer of the kind there is nothing to say of its fields.
  const notReturned = sorted.length === 0 ? [] : pullableFields(kind).filter((f) => !returned.has(f));
  return { kind, records, leftOut, notes: [...notes.values()], notReturned };
}
