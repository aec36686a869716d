// The sellers a PostgreSQL state serves, as rows every replica reads at each balancing round: added and removed
// at run time by `offersync sellers`, and copied from a config file's `sellers:` list. A row says where the API
// key is (a file path or an environment variable's name), never the key.
import type { Transaction } from 'kysely';
import type { Database, SellersTable } from './db-schema.ts';
import type { StateDatabase } from './state-database.ts';

export const SELLER_ORIGINS = ['config', 'command'] as const;
/** 'config': copied from a config file's list, and kept equal to it; 'command': set by `offersync sellers`. */
export type SellerOrigin = (typeof SELLER_ORIGINS)[number];

/** What defines a seller: its catalogue, where its key is, and its own configuration keys. */
export interface SellerSpec {
  readonly seller: string;
  /** Absolute path. */
  readonly catalogue: string;
  /** Absolute path of a file holding the API key. */
  readonly apiKeyFile: string | null;
  /** Name of an environment variable holding the API key. */
  readonly apiKeyEnv: string | null;
  /** The seller's own values of the shared configuration's keys (config.ts, SELLER_OVERRIDES). */
  readonly overrides: Readonly<Record<string, unknown>>;
}

export interface SellerRecord extends SellerSpec {
  readonly origin: SellerOrigin;
  readonly addedAt: number;
  /** Changes whenever the spec does: a replica running the seller restarts it on the new one. */
  readonly updatedAt: number;
  /** Epoch ms of `sellers remove`; null while the seller is served. */
  readonly removedAt: number | null;
}

/** What `put` did. */
export type SellerPut = 'added' | 'updated' | 'unchanged';

/** Every table whose rows belong to one seller: what `sellers remove --purge` deletes. */
const SELLER_TABLES = [
  'offers',
  'images',
  'runs',
  'journal',
  'capabilities',
  'seller_meta',
  'seller_leases',
  'sales',
  'offer_events',
] as const;

/** A sellers row as the table holds it (schema.ts). */
type Row = SellersTable;

function toRecord(r: Row): SellerRecord {
  return {
    seller: r.seller,
    catalogue: r.catalogue,
    apiKeyFile: r.api_key_file,
    apiKeyEnv: r.api_key_env,
    overrides: JSON.parse(r.overrides) as Record<string, unknown>,
    origin: r.origin === 'config' ? 'config' : 'command',
    addedAt: Number(r.added_at),
    updatedAt: Number(r.updated_at),
    removedAt: r.removed_at === null ? null : Number(r.removed_at),
  };
}

function sameSpec(a: SellerSpec, b: SellerSpec): boolean {
  return (
    a.catalogue === b.catalogue &&
    a.apiKeyFile === b.apiKeyFile &&
    a.apiKeyEnv === b.apiKeyEnv &&
    JSON.stringify(a.overrides) === JSON.stringify(b.overrides)
  );
}

const COLUMNS = [
  'seller',
  'catalogue',
  'api_key_file',
  'api_key_env',
  'overrides',
  'origin',
  'added_at',
  'updated_at',
  'removed_at',
] as const;

/** The columns a spec sets; the rest (origin, times) says how and when. */
function specColumns(spec: SellerSpec) {
  return {
    catalogue: spec.catalogue,
    api_key_file: spec.apiKeyFile,
    api_key_env: spec.apiKeyEnv,
    overrides: JSON.stringify(spec.overrides),
  };
}

export class SellerDirectory {
  constructor(
    private readonly database: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  /** The sellers served (removed ones too with `removed`), in the order they were added. */
  async list(opts: { readonly removed?: boolean } = {}): Promise<SellerRecord[]> {
    const rows = await this.database.db
      .selectFrom('sellers')
      .select(COLUMNS)
      .$if(!opts.removed, (q) => q.where('removed_at', 'is', null))
      .orderBy('added_at')
      .orderBy('seller')
      .execute();
    return rows.map(toRecord);
  }

  async get(seller: string): Promise<SellerRecord | undefined> {
    const row = await this.database.db
      .selectFrom('sellers')
      .select(COLUMNS)
      .where('seller', '=', seller)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** The seller's row, on PostgreSQL locked until the transaction ends: replicas may write it at once. */
  async #current(trx: Transaction<Database>, seller: string): Promise<Row | undefined> {
    return trx
      .selectFrom('sellers')
      .select(COLUMNS)
      .where('seller', '=', seller)
      .$if(this.database.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
  }

  /**
   * `sellers add`: the seller is served with this spec from now on, whatever the config file says of it (its
   * origin becomes 'command'). A removed seller comes back, its state as it was left.
   */
  async put(spec: SellerSpec): Promise<SellerPut> {
    return this.database.db.transaction().execute(async (trx) => {
      const now = this.now();
      const cur = await this.#current(trx, spec.seller);
      const values = {
        ...specColumns(spec),
        origin: 'command',
        updated_at: now,
        removed_at: null,
      };
      if (!cur) {
        await trx
          .insertInto('sellers')
          .values({ seller: spec.seller, added_at: now, ...values })
          .execute();
        return 'added';
      }
      const rec = toRecord(cur);
      if (rec.removedAt === null && sameSpec(rec, spec)) {
        if (rec.origin !== 'command')
          await trx.updateTable('sellers').set({ origin: 'command' }).where('seller', '=', spec.seller).execute();
        return 'unchanged';
      }
      await trx.updateTable('sellers').set(values).where('seller', '=', spec.seller).execute();
      return rec.removedAt === null ? 'updated' : 'added';
    });
  }

  /**
   * A config file's `sellers:` list, at every start: a seller never seen is added; one still as the file last
   * said (origin 'config') follows the file; one a `sellers` command added, changed or removed is left alone.
   */
  async importFromConfig(specs: readonly SellerSpec[]): Promise<{ added: string[]; updated: string[] }> {
    const added: string[] = [];
    const updated: string[] = [];
    if (specs.length === 0) return { added, updated };
    await this.database.db.transaction().execute(async (trx) => {
      const now = this.now();
      for (const spec of specs) {
        const values = specColumns(spec);
        const cur = await this.#current(trx, spec.seller);
        if (!cur) {
          // Two replicas starting together both try: the second finds the row there.
          const res = await trx
            .insertInto('sellers')
            .values({
              seller: spec.seller,
              ...values,
              origin: 'config',
              added_at: now,
              updated_at: now,
              removed_at: null,
            })
            .onConflict((oc) => oc.column('seller').doNothing())
            .executeTakeFirst();
          if (Number(res.numInsertedOrUpdatedRows ?? 0n) > 0) added.push(spec.seller);
          continue;
        }
        const rec = toRecord(cur);
        // A removed seller is left alone too: remove() makes its origin 'command'.
        if (rec.origin !== 'config' || sameSpec(rec, spec)) continue;
        await trx
          .updateTable('sellers')
          .set({ ...values, updated_at: now })
          .where('seller', '=', spec.seller)
          .execute();
        updated.push(spec.seller);
      }
    });
    return { added, updated };
  }

  /**
   * `sellers remove`: no replica serves it from its next round on. The row stays, marked removed, so that a
   * config file still listing it does not bring it back; its state stays unless purged.
   */
  async remove(seller: string): Promise<boolean> {
    const res = await this.database.db
      .updateTable('sellers')
      .set({ removed_at: this.now(), origin: 'command' })
      .where('seller', '=', seller)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Deletes every row of the seller's state and history (offers, runs, journal, sales...); returns rows per table. */
  async purge(seller: string): Promise<Record<(typeof SELLER_TABLES)[number], number>> {
    return this.database.db.transaction().execute(async (trx) => {
      const out = {} as Record<(typeof SELLER_TABLES)[number], number>;
      for (const table of SELLER_TABLES) {
        const res = await trx.deleteFrom(table).where('seller', '=', seller).executeTakeFirst();
        out[table] = Number(res.numDeletedRows);
      }
      return out;
    });
  }
}
