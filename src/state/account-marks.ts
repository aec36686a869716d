// What a seller's state db tells of the account offers it holds, by login fingerprint only: enough for another
// seller of its group to know that an account is live or sold there (docs/architecture.md, Seller groups). Never
// a login, never credentials: the state holds neither.
import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from './db-schema.ts';

/** One account offer of a seller, as its state db last saw it. */
export interface AccountMark {
  readonly seller: string;
  readonly externalId: string;
  readonly remoteId: number | null;
  /** The marketplace's status as last seen: listed, sold, archived, ... */
  readonly remoteStatus: string | null;
  /** offersync created or adopted it. */
  readonly managed: boolean;
  readonly loginFingerprint: string;
  /** Epoch ms: when the marketplace last changed it (else when the state did). */
  readonly at: number;
}

interface MarkRow {
  readonly seller: string;
  readonly external_id: string;
  readonly remote_id: number | string | null;
  readonly remote_status: string | null;
  readonly managed: number;
  readonly login_fingerprint: string | null;
  readonly remote_updated_at: number | string | null;
  readonly updated_at: number | string;
}

function markOf(r: MarkRow, seller: string): AccountMark | undefined {
  if (r.login_fingerprint === null) return undefined;
  return {
    seller,
    externalId: r.external_id,
    remoteId: r.remote_id === null ? null : Number(r.remote_id),
    remoteStatus: r.remote_status,
    managed: Number(r.managed) === 1,
    loginFingerprint: r.login_fingerprint,
    at: Number(r.remote_updated_at ?? r.updated_at),
  };
}

/** The account offers with a fingerprint of `sellers` in one database (PostgreSQL, where a fleet shares one). */
export async function accountMarksIn(db: Kysely<Database>, sellers: readonly string[]): Promise<AccountMark[]> {
  if (sellers.length === 0) return [];
  const rows = await db
    .selectFrom('offers')
    .select([
      'seller',
      'external_id',
      'remote_id',
      'remote_status',
      'managed',
      'login_fingerprint',
      'remote_updated_at',
      'updated_at',
    ])
    .where('kind', '=', 'account')
    .where('login_fingerprint', 'is not', null)
    .where('seller', 'in', [...sellers])
    .execute();
  return rows.flatMap((r) => markOf(r as MarkRow, r.seller) ?? []);
}

/**
 * The account offers of another seller's own sqlite file, read only: a file not made yet (the seller never ran)
 * or one of an older offersync (no fingerprints yet) holds none.
 */
export function accountMarksOfFile(path: string, seller: string): AccountMark[] {
  if (path === ':memory:' || !existsSync(path)) return [];
  const raw = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    raw.pragma('busy_timeout = 5000');
    const columns = raw.prepare(`SELECT name FROM pragma_table_info('offers')`).all() as { name: string }[];
    if (!columns.some((c) => c.name === 'login_fingerprint')) return [];
    const rows = raw
      .prepare(
        `SELECT seller, external_id, remote_id, remote_status, managed, login_fingerprint, remote_updated_at,
           updated_at FROM offers WHERE kind = 'account' AND login_fingerprint IS NOT NULL`,
      )
      .all() as MarkRow[];
    return rows.flatMap((r) => markOf(r, seller) ?? []);
  } finally {
    raw.close();
  }
}
