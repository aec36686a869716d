// kysely as a typed query builder only: queries are compiled once against a driver that never runs, and
// executed synchronously by better-sqlite3 prepared statements. Parameters are named placeholders,
// compiled in and bound by name on each call, so one prepared statement serves every call.
import type BetterSqlite3 from 'better-sqlite3';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Compilable } from 'kysely';
import type { Database } from './schema.ts';

/** Builds queries; has no connection (executing through it throws). */
export const queryBuilder = new Kysely<Database>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

export type SqlValue = string | number | bigint | Buffer | null;
export type SqlParams = Readonly<Record<string, SqlValue>>;

const MARK = '\u0000param:';

/**
 * A named placeholder, typed as the column value it stands for so the builder accepts it. At compile
 * time it is a marker string; `compile` turns each marker into a lookup by name.
 */
export function param<T>(name: string): T {
  return `${MARK}${name}` as unknown as T;
}

export interface CompiledStatement<R> {
  readonly sql: string;
  run(params?: SqlParams): BetterSqlite3.RunResult;
  get(params?: SqlParams): R | undefined;
  all(params?: SqlParams): R[];
  /** Rows as arrays in select-list order: for big reads, it skips building an object per row. */
  tuples(params?: SqlParams): IterableIterator<unknown[]>;
  /** The first row as an array, for lookups by key run 100,000 times a plan. */
  tuple(params?: SqlParams): unknown[] | undefined;
}

type Slot = { readonly named: true; readonly name: string } | { readonly named: false; readonly value: SqlValue };

export function compile<R>(db: BetterSqlite3.Database, query: Compilable<R>): CompiledStatement<R> {
  const compiled = query.compile();
  const slots = compiled.parameters.map(
    (p): Slot =>
      typeof p === 'string' && p.startsWith(MARK)
        ? { named: true, name: p.slice(MARK.length) }
        : { named: false, value: p as SqlValue },
  );
  const stmt = db.prepare<unknown[], R>(compiled.sql);
  let rawStmt: BetterSqlite3.Statement<unknown[], unknown[]> | undefined;
  const bind = (params: SqlParams = {}): SqlValue[] =>
    slots.map((s) => {
      if (!s.named) return s.value;
      const v = params[s.name];
      // A missing name is a bug in the caller, not a NULL: say which.
      if (v === undefined) throw new Error(`state db: no value for parameter "${s.name}" in ${compiled.sql}`);
      return v;
    });
  return {
    sql: compiled.sql,
    run: (params) => stmt.run(...bind(params)),
    get: (params) => stmt.get(...bind(params)),
    all: (params) => stmt.all(...bind(params)),
    tuples: (params) => {
      rawStmt ??= db.prepare<unknown[], unknown[]>(compiled.sql).raw(true);
      return rawStmt.iterate(...bind(params));
    },
    tuple: (params) => {
      rawStmt ??= db.prepare<unknown[], unknown[]>(compiled.sql).raw(true);
      return rawStmt.get(...bind(params));
    },
  };
}
