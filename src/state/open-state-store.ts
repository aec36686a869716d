// Which StateStore a configuration asks for: PostgreSQL when it names a URL, else the sqlite file.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../log/logger.ts';
import { openPostgresStateStore } from './postgres-state-store.ts';
import { openStateStore } from './sqlite-state-store.ts';
import type { StateStore } from './state-store.ts';
import type { SyncPostgresConnection } from './sync-postgres-connection.ts';

export interface StateLocation {
  /** The sqlite file (or ':memory:'); unused with a URL. */
  readonly path: string;
  /** postgres://...; empty for sqlite. */
  readonly url: string;
  /** PGPASSWORD, used when the URL has none. */
  readonly password?: string;
  /** Runs kept after each run (state.keepRuns). */
  readonly keepRuns?: number;
}

/** True when the state lives in PostgreSQL. */
export function isPostgres(loc: StateLocation): boolean {
  return loc.url !== '';
}

export function openSellerStateStore(
  loc: StateLocation,
  seller: string,
  opts: { readonly logger: Logger; readonly connection?: SyncPostgresConnection },
): StateStore {
  if (isPostgres(loc)) {
    return openPostgresStateStore(
      seller,
      { url: loc.url, ...(loc.password ? { password: loc.password } : {}) },
      {
        logger: opts.logger,
        ...(loc.keepRuns ? { keepRuns: loc.keepRuns } : {}),
        ...(opts.connection ? { connection: opts.connection } : {}),
      },
    );
  }
  if (loc.path !== ':memory:') mkdirSync(dirname(loc.path), { recursive: true, mode: 0o700 });
  return openStateStore(loc.path, { logger: opts.logger, ...(loc.keepRuns ? { keepRuns: loc.keepRuns } : {}) });
}
