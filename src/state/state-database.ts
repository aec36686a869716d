// A database that holds offersync's state, as the store needs it: the kysely instance (SqliteDialect on
// better-sqlite3, or PostgresDialect on a pg.Pool) and the few things that must differ by dialect. Everything
// else, every query of the store, is written once (kysely-state-store.ts).
import type { Kysely, RawBuilder } from 'kysely';
import type { HotStatements } from './hot-ops.ts';
import type { OfferView } from './offer-view.ts';
import type { Database } from './db-schema.ts';
import type { StateDialectName } from './state-dialect-name.ts';

export interface StateDatabase {
  readonly dialect: StateDialectName;
  readonly db: Kysely<Database>;
  /** The file, or the URL without its password: for messages and logs. */
  readonly where: string;
  /**
   * Epoch ms by the clock leases are judged by: the database's own in PostgreSQL (replicas on many machines
   * share it), the store's in a sqlite file (one machine; tests pass a fake).
   */
  clock(storeNow: number): RawBuilder<number>;
  /**
   * The offers of one seller as a run's planning reads them (offer-view.ts), without holding their records at
   * once: sqlite reads them row by row as asked, PostgreSQL in keyset pages.
   */
  offerView(seller: string): Promise<OfferView>;
  /** The state writes of every marketplace write, run in batches by the group commit (group-commit.ts). */
  readonly hot: HotStatements;
  close(): Promise<void>;
}
