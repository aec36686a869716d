// The marketplace's data: three offer tables, the image gallery, one clock. Knows identity (id or
// external_id) and uniqueness; the rules of each kind live in the route files.
import { MonotonicClock, isoMicros, updateStampUs } from './sandbox-clock.ts';
import { HttpError } from './http-error.ts';
import type { ImageRecord, OfferRecord } from './sandbox-records.ts';
import type { OfferKind, SandboxDump, SandboxRepresentation } from './sandbox-options.ts';

function maxKey(m: Map<number, unknown>): number {
  let max = 0;
  for (const k of m.keys()) if (k > max) max = k;
  return max;
}

class OfferTable {
  readonly byId = new Map<number, OfferRecord>();
  readonly byExternalId = new Map<string, number>();
  nextId = 1;

  records(): OfferRecord[] {
    return [...this.byId.values()].sort((a, b) => a.id - b.id);
  }
}

interface PersistedStore {
  version: 1;
  clockUs: number;
  nextIds: { accounts: number; items: number; topUps: number; images: number };
  accounts: OfferRecord[];
  items: OfferRecord[];
  topUps: OfferRecord[];
  images: ImageRecord[];
}

export class SandboxStore {
  private tables: Record<OfferKind, OfferTable> = {
    accounts: new OfferTable(),
    items: new OfferTable(),
    'top-ups': new OfferTable(),
  };
  readonly images = new Map<number, ImageRecord>();
  /** Uploaded bytes by stored filename, served at the image's url. Memory only: a persisted sandbox forgets them. */
  readonly imageBytes = new Map<string, Uint8Array>();
  nextImageId = 1;
  clock = new MonotonicClock();
  /** The switches that shape the timestamps a write stores; the server points this at its current ones. */
  stamps: () => SandboxRepresentation = () => ({});

  all(kind: OfferKind): OfferRecord[] {
    return this.tables[kind].records();
  }

  byId(kind: OfferKind, id: number): OfferRecord | undefined {
    return this.tables[kind].byId.get(id);
  }

  byExternalId(kind: OfferKind, externalId: string): OfferRecord | undefined {
    const id = this.tables[kind].byExternalId.get(externalId);
    return id === undefined ? undefined : this.tables[kind].byId.get(id);
  }

  /** All digits: the id, else (no such id) the external_id; otherwise the external_id. */
  find(kind: OfferKind, identifier: string, numericOnly = false): OfferRecord | undefined {
    if (/^\d+$/.test(identifier)) {
      const n = Number(identifier);
      const byId = Number.isSafeInteger(n) ? this.byId(kind, n) : undefined;
      if (byId || numericOnly) return byId;
      return this.byExternalId(kind, identifier);
    }
    return numericOnly ? undefined : this.byExternalId(kind, identifier);
  }

  /**
   * 409 when the external_id is taken within the kind, archived offers included; unless `allowDuplicate`, as a
   * table without a unique key: the external_id then keeps naming the first offer.
   */
  create(
    kind: OfferKind,
    externalId: string,
    status: string,
    fields: Record<string, unknown>,
    idFields?: (id: number) => Record<string, unknown>,
    allowDuplicate = false,
  ): OfferRecord {
    const t = this.tables[kind];
    if (t.byExternalId.has(externalId) && !allowDuplicate)
      throw new HttpError(409, `An offer with external_id '${externalId}' already exists.`);
    const id = t.nextId++;
    const now = this.clock.next();
    const rec: OfferRecord = {
      id,
      external_id: externalId,
      status,
      created_us: now,
      updated_us: kind === 'accounts' && this.stamps().accountsNullUpdatedAt ? null : now,
      sold_us: null,
      fields: { ...idFields?.(id), ...fields },
    };
    t.byId.set(id, rec);
    if (!t.byExternalId.has(externalId)) t.byExternalId.set(externalId, id);
    return rec;
  }

  /** Applies a change and moves updated_at (and sold_at on a sale); 409 on an external_id taken by another offer. */
  update(
    kind: OfferKind,
    rec: OfferRecord,
    change: { external_id?: string; status?: string; fields?: Record<string, unknown> },
  ): void {
    const t = this.tables[kind];
    if (change.external_id !== undefined && change.external_id !== rec.external_id) {
      if (t.byExternalId.has(change.external_id))
        throw new HttpError(409, `An offer with external_id '${change.external_id}' already exists.`);
      if (t.byExternalId.get(rec.external_id) === rec.id) t.byExternalId.delete(rec.external_id);
      t.byExternalId.set(change.external_id, rec.id);
      rec.external_id = change.external_id;
    }
    if (change.fields) Object.assign(rec.fields, change.fields);
    const now = this.clock.next();
    rec.updated_us = updateStampUs(now, this.stamps().updatedAtLagSec ?? 0);
    if (change.status !== undefined) {
      if (change.status === 'sold' && rec.status !== 'sold') rec.sold_us = now;
      rec.status = change.status;
    }
  }

  /** Forgets an offer: gone from the lists and by identifier, its external_id free for a create. */
  remove(kind: OfferKind, rec: OfferRecord): void {
    const t = this.tables[kind];
    t.byId.delete(rec.id);
    if (t.byExternalId.get(rec.external_id) === rec.id) t.byExternalId.delete(rec.external_id);
  }

  addImage(make: (id: number, createdUs: number) => ImageRecord): ImageRecord {
    const img = make(this.nextImageId++, this.clock.next());
    this.images.set(img.id, img);
    return img;
  }

  clear(): void {
    this.tables = { accounts: new OfferTable(), items: new OfferTable(), 'top-ups': new OfferTable() };
    this.images.clear();
    this.imageBytes.clear();
    this.nextImageId = 1;
  }

  dump(): SandboxDump {
    const flat = (r: OfferRecord): Record<string, unknown> =>
      structuredClone({
        id: r.id,
        external_id: r.external_id,
        status: r.status,
        created_at: isoMicros(r.created_us),
        updated_at: r.updated_us === null ? null : isoMicros(r.updated_us),
        sold_at: r.sold_us === null ? null : isoMicros(r.sold_us),
        ...r.fields,
      });
    return {
      accounts: this.all('accounts').map(flat),
      items: this.all('items').map(flat),
      topUps: this.all('top-ups').map(flat),
      images: [...this.images.values()]
        .sort((a, b) => a.id - b.id)
        .map((i) => ({ ...i, created_at: isoMicros(i.created_us) })),
    };
  }

  toJSON(): PersistedStore {
    return {
      version: 1,
      clockUs: this.clock.lastValue,
      nextIds: {
        accounts: this.tables.accounts.nextId,
        items: this.tables.items.nextId,
        topUps: this.tables['top-ups'].nextId,
        images: this.nextImageId,
      },
      accounts: this.all('accounts'),
      items: this.all('items'),
      topUps: this.all('top-ups'),
      images: [...this.images.values()].sort((a, b) => a.id - b.id),
    };
  }

  static fromJSON(raw: unknown): SandboxStore {
    const p = raw as Partial<PersistedStore> | null;
    if (!p || typeof p !== 'object' || p.version !== 1 || !p.nextIds)
      throw new Error('not a sandbox store (version 1)');
    const s = new SandboxStore();
    s.clock = new MonotonicClock(Number(p.clockUs) || 0);
    const load = (kind: OfferKind, recs: OfferRecord[] | undefined, nextId: number) => {
      const t = s.tables[kind];
      for (const r of recs ?? []) {
        t.byId.set(r.id, r);
        t.byExternalId.set(r.external_id, r.id);
      }
      t.nextId = Math.max(nextId || 1, maxKey(t.byId) + 1);
    };
    load('accounts', p.accounts, p.nextIds.accounts);
    load('items', p.items, p.nextIds.items);
    load('top-ups', p.topUps, p.nextIds.topUps);
    for (const img of p.images ?? []) s.images.set(img.id, img);
    s.nextImageId = Math.max(p.nextIds.images || 1, maxKey(s.images) + 1);
    return s;
  }
}
