// The databases the state db lives in: a sqlite file (better-sqlite3) or PostgreSQL (node-postgres).
export const STATE_DIALECTS = ['sqlite', 'postgres'] as const;
export type StateDialectName = (typeof STATE_DIALECTS)[number];
