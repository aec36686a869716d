// Between the records offersync uses (records.ts) and the rows SQLite stores (db-schema.ts): JSON columns,
// 0/1 booleans, camelCase vs snake_case. Nothing else lives here.
import type { Selectable } from 'kysely';
import type {
  CapabilityRecord,
  ImageRecord,
  JournalEntry,
  OfferEvent,
  OfferEventChange,
  OfferEventInput,
  OfferEventType,
  OfferRecord,
  RunRecord,
  StateKind,
  WriterLease,
} from './records.ts';
import type {
  CapabilitiesTable,
  ImagesTable,
  JournalTable,
  LeaseTable,
  OfferEventsTable,
  OffersTable,
  RunsTable,
} from './db-schema.ts';
import type { OfferRecordPatch } from './state-store.ts';

type Row<T> = Selectable<T>;

const EMPTY: readonly string[] = Object.freeze([]);

/** '[]' is by far the most common value: skip the parse and share one frozen array. */
function stringArray(json: string): readonly string[] {
  return json === '[]' ? EMPTY : (JSON.parse(json) as string[]);
}

/** The columns a run reads (OFFER_COLUMNS): the title is searched, never read into a record. */
export function toOfferRecord(r: Pick<Row<OffersTable>, (typeof OFFER_COLUMNS)[number]>): OfferRecord {
  return {
    kind: r.kind as StateKind,
    externalId: r.external_id,
    remoteId: r.remote_id,
    lastApplied: r.last_applied === null ? null : (JSON.parse(r.last_applied) as Record<string, unknown>),
    credentialsHmac: r.credentials_hmac,
    imageHashes: stringArray(r.image_hashes),
    contentHash: r.content_hash,
    remoteStatus: r.remote_status,
    remoteUpdatedAt: r.remote_updated_at,
    managed: r.managed === 1,
    sourceFile: r.source_file,
    lossyFields: stringArray(r.lossy_fields),
    soldCount: nullableNumber(r.sold_count),
    soldCountAtSend: nullableNumber(r.sold_count_at_send),
    loginFingerprint: r.login_fingerprint,
    updatedAt: r.updated_at,
  };
}

/** Every offers column, in the order listOffers selects them (offerFromTuple reads them by position). */
export const OFFER_COLUMNS = [
  'kind',
  'external_id',
  'remote_id',
  'last_applied',
  'credentials_hmac',
  'image_hashes',
  'content_hash',
  'remote_status',
  'remote_updated_at',
  'managed',
  'source_file',
  'lossy_fields',
  'sold_count',
  'sold_count_at_send',
  'updated_at',
  'login_fingerprint',
] as const satisfies readonly (keyof OffersTable)[];

/**
 * A row of listOffers. Every run reads all of them at once (100,000 for a large seller), so the row keeps
 * its last-applied fields as the JSON text the db holds and parses it when read: the planner reads it once per
 * offer, and the parsed objects were the largest part of the state in memory. Repeated strings (kind, status,
 * source file) are shared, not one copy per row.
 */
class ListedOffer implements OfferRecord {
  readonly #lastApplied: string | null;
  constructor(
    readonly kind: StateKind,
    readonly externalId: string,
    readonly remoteId: number | null,
    lastApplied: string | null,
    readonly credentialsHmac: string | null,
    readonly imageHashes: readonly string[],
    readonly contentHash: string | null,
    readonly remoteStatus: string | null,
    readonly remoteUpdatedAt: number | null,
    readonly managed: boolean,
    readonly sourceFile: string | null,
    readonly lossyFields: readonly string[],
    readonly soldCount: number | null,
    readonly soldCountAtSend: number | null,
    readonly updatedAt: number,
    readonly loginFingerprint: string | null,
  ) {
    this.#lastApplied = lastApplied;
  }

  get lastApplied(): Readonly<Record<string, unknown>> | null {
    return this.#lastApplied === null ? null : (JSON.parse(this.#lastApplied) as Record<string, unknown>);
  }
}

/** One shared copy of each distinct string of a column across a listing. */
export class StringPool {
  readonly #strings = new Map<string, string>();
  intern<T extends string | null>(s: T): T {
    if (s === null) return s;
    const known = this.#strings.get(s);
    if (known !== undefined) return known as T;
    this.#strings.set(s, s);
    return s;
  }
}

const KINDS: Readonly<Record<string, StateKind>> = { account: 'account', item: 'item', topup: 'topup' };

/** The fast path of listOffers: a row as an array in OFFER_COLUMNS order. */
export function offerFromTuple(t: readonly unknown[], pool: StringPool): OfferRecord {
  return new ListedOffer(
    KINDS[t[0] as string] ?? (t[0] as StateKind),
    t[1] as string,
    t[2] as number | null,
    t[3] as string | null,
    t[4] as string | null,
    stringArray(t[5] as string),
    t[6] as string | null,
    pool.intern(t[7] as string | null),
    t[8] as number | null,
    t[9] === 1,
    pool.intern(t[10] as string | null),
    stringArray(t[11] as string),
    nullableNumber(t[12]),
    nullableNumber(t[13]),
    t[14] as number,
    (t[15] as string | null | undefined) ?? null,
  );
}

/** PostgreSQL hands a BIGINT back as a string (unless the pool parses it, as postgres-state-database.ts's does). */
function nullableNumber(v: unknown): number | null {
  return v == null ? null : Number(v);
}

/** The columns an OfferRecordPatch sets, in the order the upsert statements are keyed by. */
export const OFFER_PATCH_COLUMNS = {
  remoteId: 'remote_id',
  lastApplied: 'last_applied',
  credentialsHmac: 'credentials_hmac',
  imageHashes: 'image_hashes',
  contentHash: 'content_hash',
  remoteStatus: 'remote_status',
  remoteUpdatedAt: 'remote_updated_at',
  managed: 'managed',
  sourceFile: 'source_file',
  lossyFields: 'lossy_fields',
  soldCount: 'sold_count',
  soldCountAtSend: 'sold_count_at_send',
  title: 'title',
  loginFingerprint: 'login_fingerprint',
} as const satisfies { [K in keyof Required<OfferRecordPatch>]: keyof OffersTable };

export type OfferPatchField = keyof typeof OFFER_PATCH_COLUMNS;
export const OFFER_PATCH_FIELDS = Object.keys(OFFER_PATCH_COLUMNS) as OfferPatchField[];

/** A new row's values before the patch applies. */
export function offerDefaults(kind: StateKind, externalId: string, now: number): Row<OffersTable> {
  return {
    kind,
    external_id: externalId,
    remote_id: null,
    last_applied: null,
    credentials_hmac: null,
    image_hashes: '[]',
    content_hash: null,
    remote_status: null,
    remote_updated_at: null,
    managed: 0,
    source_file: null,
    lossy_fields: '[]',
    sold_count: null,
    sold_count_at_send: null,
    title: null,
    login_fingerprint: null,
    updated_at: now,
  };
}

/** Each set of patched fields as one array, by its bits in OFFER_PATCH_FIELDS' order. */
const patchSets = new Map<number, readonly OfferPatchField[]>();

/**
 * Writes the patch's defined fields onto `row` (a fresh defaults object); answers the fields it set, as the same
 * frozen array for the same set each time (a store finds its prepared upsert by that array, not by building a key
 * a write).
 */
export function applyOfferPatch(row: Row<OffersTable>, patch: OfferRecordPatch): readonly OfferPatchField[] {
  let bits = 0;
  for (let i = 0; i < OFFER_PATCH_FIELDS.length; i++) {
    const field = OFFER_PATCH_FIELDS[i]!;
    if (patch[field] === undefined) continue;
    bits |= 1 << i;
    switch (field) {
      case 'remoteId':
        row.remote_id = patch.remoteId ?? null;
        break;
      case 'lastApplied':
        row.last_applied = patch.lastApplied == null ? null : JSON.stringify(patch.lastApplied);
        break;
      case 'credentialsHmac':
        row.credentials_hmac = patch.credentialsHmac ?? null;
        break;
      case 'imageHashes':
        row.image_hashes = JSON.stringify(patch.imageHashes);
        break;
      case 'contentHash':
        row.content_hash = patch.contentHash ?? null;
        break;
      case 'remoteStatus':
        row.remote_status = patch.remoteStatus ?? null;
        break;
      case 'remoteUpdatedAt':
        row.remote_updated_at = patch.remoteUpdatedAt ?? null;
        break;
      case 'managed':
        row.managed = patch.managed ? 1 : 0;
        break;
      case 'sourceFile':
        row.source_file = patch.sourceFile ?? null;
        break;
      case 'lossyFields':
        row.lossy_fields = JSON.stringify(patch.lossyFields);
        break;
      case 'soldCount':
        row.sold_count = patch.soldCount ?? null;
        break;
      case 'soldCountAtSend':
        row.sold_count_at_send = patch.soldCountAtSend ?? null;
        break;
      case 'title':
        row.title = patch.title ?? null;
        break;
      case 'loginFingerprint':
        row.login_fingerprint = patch.loginFingerprint ?? null;
        break;
      default:
        field satisfies never;
    }
  }
  let set = patchSets.get(bits);
  if (!set) {
    set = Object.freeze(OFFER_PATCH_FIELDS.filter((_, i) => (bits & (1 << i)) !== 0));
    patchSets.set(bits, set);
  }
  return set;
}

export function toImageRecord(r: Row<ImagesTable>): ImageRecord {
  return { sha256: r.sha256, remoteId: r.remote_id, url: r.url, uploadedAt: r.uploaded_at };
}

export function toJournalEntry(r: Row<JournalTable>): JournalEntry {
  return {
    id: r.id,
    runId: r.run_id,
    op: r.op as JournalEntry['op'],
    kind: r.kind as JournalEntry['kind'],
    keys: stringArray(r.keys),
    state: r.state as JournalEntry['state'],
    error: r.error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toCapabilityRecord(r: Row<CapabilitiesTable>): CapabilityRecord {
  return { name: r.name, usable: r.usable === 1, detail: r.detail, learntAt: r.learnt_at };
}

export function toRunRecord(r: Row<RunsTable>): RunRecord {
  return {
    id: r.id,
    command: r.command,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    outcome: r.outcome as RunRecord['outcome'],
    counts: JSON.parse(r.counts) as Record<string, number>,
  };
}

export function toWriterLease(r: Readonly<LeaseTable>): WriterLease {
  return { holder: r.holder, pid: r.pid, hostname: r.hostname, scope: r.scope, expiresAt: r.expires_at };
}

/** An event as its row stores it (the id is the database's). */
export function offerEventRow(e: OfferEventInput): Omit<Row<OfferEventsTable>, 'id'> {
  return {
    kind: e.kind,
    external_id: e.externalId,
    run_id: e.runId,
    at: e.at,
    event: e.type,
    route: e.route,
    changes: JSON.stringify(e.changes),
    quantity: e.quantity,
    detail: e.detail,
    answer: e.answer?.outcome ?? null,
    answer_status: e.answer?.status ?? null,
    answer_message: e.answer?.message ?? null,
  };
}

export function toOfferEvent(r: Row<OfferEventsTable>): OfferEvent {
  const outcome = r.answer as NonNullable<OfferEvent['answer']>['outcome'] | null;
  return {
    id: Number(r.id),
    kind: r.kind as StateKind,
    externalId: r.external_id,
    runId: r.run_id,
    at: Number(r.at),
    type: r.event as OfferEventType,
    route: r.route,
    changes: JSON.parse(r.changes) as OfferEventChange[],
    quantity: nullableNumber(r.quantity),
    detail: r.detail,
    answer: outcome === null ? null : { outcome, status: nullableNumber(r.answer_status), message: r.answer_message },
  };
}
