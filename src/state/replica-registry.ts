// Daemon replicas sharing sellers through one PostgreSQL: each announces itself by heartbeat (replicas table)
// so the others can count live replicas for the fair share, and reads who holds which seller (seller_leases).
// The leases themselves are taken and renewed through each seller's store (postgres-state-store.ts).
import type { LeaseClaim } from './records.ts';
import { DB_NOW } from './postgres-state-store.ts';
import type { SyncPostgresConnection } from './sync-postgres-connection.ts';

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
  constructor(private readonly conn: SyncPostgresConnection) {}

  /** Announces (or renews) this replica for ttlMs; returns how many replicas are live, this one included. */
  heartbeat(claim: LeaseClaim, ttlMs: number): number {
    this.conn.query(
      `INSERT INTO replicas (holder, pid, hostname, started_at, expires_at)
       VALUES ($1, $2, $3, ${DB_NOW}, ${DB_NOW} + $4)
       ON CONFLICT (holder) DO UPDATE SET expires_at = excluded.expires_at`,
      [claim.holder, claim.pid, claim.hostname, ttlMs],
    );
    // Replicas gone for long are forgotten; recently gone ones just stop counting.
    this.conn.query(`DELETE FROM replicas WHERE expires_at < ${DB_NOW} - 10 * $1::bigint`, [ttlMs]);
    const row = this.conn.query<{ n: number }>(`SELECT count(*)::int AS n FROM replicas WHERE expires_at > ${DB_NOW}`)
      .rows[0];
    return Math.max(1, row?.n ?? 1);
  }

  /** Who holds each of these sellers; a seller without a row was never held or was released. */
  holders(sellers: readonly string[]): SellerHolder[] {
    return this.conn
      .query<{ seller: string; holder: string; hostname: string; pid: number; expires_at: number; live: boolean }>(
        `SELECT seller, holder, hostname, pid, expires_at, expires_at > ${DB_NOW} AS live FROM seller_leases
         WHERE seller = ANY($1::text[]) ORDER BY seller`,
        [sellers],
      )
      .rows.map((r) => ({
        seller: r.seller,
        holder: r.holder,
        hostname: r.hostname,
        pid: r.pid,
        live: r.live,
        expiresAt: r.expires_at,
      }));
  }

  /** This replica stops counting at once (SIGTERM), so the others' fair share grows without waiting. */
  leave(holder: string): void {
    this.conn.query('DELETE FROM replicas WHERE holder = $1', [holder]);
  }
}
