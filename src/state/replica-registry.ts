// Daemon replicas sharing sellers through one PostgreSQL: each announces itself by heartbeat (replicas table)
// so the others can count live replicas for the fair share, and reads who holds which seller (seller_leases).
// The leases themselves are taken and renewed through each seller's store (kysely-state-store.ts).
import { sql } from 'kysely';
import { DB_NOW, type PostgresStateDatabase } from './postgres-state-database.ts';
import type { LeaseClaim } from './records.ts';

export interface SellerHolder {
  readonly seller: string;
  readonly holder: string;
  readonly hostname: string;
  readonly pid: number;
  /** False once its lease ran out (by the database clock): anyone may take the seller. */
  readonly live: boolean;
  readonly expiresAt: number;
}

export class ReplicaRegistry {
  constructor(private readonly database: PostgresStateDatabase) {}

  /** Announces (or renews) this replica for ttlMs; returns how many replicas are live, this one included. */
  async heartbeat(claim: LeaseClaim, ttlMs: number): Promise<number> {
    const db = this.database.db;
    await db
      .insertInto('replicas')
      .values({
        holder: claim.holder,
        pid: claim.pid,
        hostname: claim.hostname,
        started_at: DB_NOW,
        expires_at: sql<number>`${DB_NOW} + ${ttlMs}`,
      })
      .onConflict((oc) => oc.column('holder').doUpdateSet((eb) => ({ expires_at: eb.ref('excluded.expires_at') })))
      .execute();
    // Replicas gone for long are forgotten; recently gone ones just stop counting.
    await db.deleteFrom('replicas').where('expires_at', '<', sql<number>`${DB_NOW} - 10 * ${ttlMs}::bigint`).execute();
    const row = await db
      .selectFrom('replicas')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('expires_at', '>', DB_NOW)
      .executeTakeFirst();
    return Math.max(1, Number(row?.n ?? 1));
  }

  /** Who holds each of these sellers; a seller without a row was never held or was released. */
  async holders(sellers: readonly string[]): Promise<SellerHolder[]> {
    if (sellers.length === 0) return [];
    const rows = await this.database.db
      .selectFrom('seller_leases')
      .select(['seller', 'holder', 'hostname', 'pid', 'expires_at', sql<boolean>`expires_at > ${DB_NOW}`.as('live')])
      .where('seller', 'in', sellers)
      // A released lease keeps its row (its epoch only grows) with no holder: the seller is free.
      .where('holder', '<>', '')
      .orderBy('seller')
      .execute();
    return rows.map((r) => ({
      seller: r.seller,
      holder: r.holder,
      hostname: r.hostname,
      pid: r.pid,
      live: r.live,
      expiresAt: Number(r.expires_at),
    }));
  }

  /** This replica stops counting at once (SIGTERM), so the others' fair share grows without waiting. */
  async leave(holder: string): Promise<void> {
    await this.database.db.deleteFrom('replicas').where('holder', '=', holder).execute();
  }
}
