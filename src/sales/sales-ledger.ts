// Where a seller's sales are kept, and read back: sold.jsonl beside a sqlite state db (one machine), the state db's
// sales table with PostgreSQL (replicas share no disk: a sale must not stay on whichever one held the seller).
// Either way a sale reads back as the sold.jsonl line it is (sold-log.ts), for `offersync sales`, `status` and the
// status pages.
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type { SaleRecord } from '../state/records.ts';
import type { StateStore } from '../state/state-store.ts';
import { appendSold, type SoldEntry, soldLogPath } from './sold-log.ts';

export interface SalesLedger {
  /** Where the sales are, for messages: the file, or "the state db". */
  readonly where: string;
  record(entries: readonly SoldEntry[]): Promise<void>;
  /** Sales seen at or after sinceMs, oldest first. */
  since(sinceMs: number): Promise<SoldEntry[]>;
  /** The latest `limit` sales, newest first. */
  latest(limit: number): Promise<SoldEntry[]>;
  /** How many sales were seen at or after sinceMs. */
  countSince(sinceMs: number): Promise<number>;
}

type SalesStore = Pick<StateStore, 'recordSales' | 'listSales' | 'latestSales' | 'countSales' | 'getMeta' | 'setMeta'>;

/**
 * Sales that could not be written to sold.jsonl (a full disk, a read-only folder), kept in the state db's meta until
 * a run can write them: a sale is a fact, told once, never lost and never twice.
 */
export const PENDING_SALES_KEY = 'sales.pending';

/** The state db's sales (PostgreSQL state), or sold.jsonl beside `statePath` (sqlite). */
export function salesLedger(inState: boolean, statePath: string, store: SalesStore): SalesLedger {
  return inState ? new StateSalesLedger(store) : new FileSalesLedger(statePath, store);
}

/** sold.jsonl beside a sqlite state db at statePath. */
export function fileSalesLedger(statePath: string): SalesLedger {
  return new FileSalesLedger(statePath);
}

/** When offersync saw the sale, as epoch ms: what the ledgers select by. */
export function seenAtMs(e: Pick<SoldEntry, 'seen_at'>): number {
  const t = Date.parse(e.seen_at);
  return Number.isFinite(t) ? t : 0;
}

function toSaleRecord(e: SoldEntry): SaleRecord {
  return { kind: e.kind, externalId: e.external_id, seenAt: seenAtMs(e), key: e.sale_key ?? null, entry: { ...e } };
}

class StateSalesLedger implements SalesLedger {
  readonly where = 'the state db';
  constructor(private readonly store: SalesStore) {}

  async record(entries: readonly SoldEntry[]): Promise<void> {
    // No sales: the store's batches are none, so no statement is sent.
    await this.store.recordSales(entries.map(toSaleRecord));
  }

  async since(sinceMs: number): Promise<SoldEntry[]> {
    return (await this.store.listSales(sinceMs)).map((r) => r.entry as unknown as SoldEntry);
  }

  async latest(limit: number): Promise<SoldEntry[]> {
    return (await this.store.latestSales(limit)).map((r) => r.entry as unknown as SoldEntry);
  }

  countSince(sinceMs: number): Promise<number> {
    return this.store.countSales(sinceMs);
  }
}

class FileSalesLedger implements SalesLedger {
  readonly where: string;
  readonly #path: string | null;
  constructor(
    private readonly statePath: string,
    /** Keeps the sales sold.jsonl could not take until a later run writes them; none: reading only. */
    private readonly pending?: Pick<StateStore, 'getMeta' | 'setMeta'>,
  ) {
    this.#path = soldLogPath(statePath);
    this.where = this.#path ?? 'nowhere (the state db is in memory)';
  }

  /** The sales still pending first, then these; on failure all of them stay pending and the error goes up. */
  async record(entries: readonly SoldEntry[]): Promise<void> {
    const held = this.pending && this.#path ? await readPending(this.pending) : [];
    // A crash after the append and before the pending list was cleared: what the file already has is not told twice.
    const inFile = held.length > 0 ? new Set(this.#all().map((e) => e.sale_key)) : new Set<string>();
    const all = [...held.filter((e) => !inFile.has(e.sale_key)), ...entries];
    try {
      appendSold(this.statePath, all);
    } catch (err) {
      if (this.pending && this.#path && all.length > 0)
        await this.pending.setMeta(PENDING_SALES_KEY, JSON.stringify(all));
      throw err;
    }
    if (held.length > 0) await this.pending!.setMeta(PENDING_SALES_KEY, '');
  }

  /** Both files, the rotated one first: a sale stays readable until a second rotation. */
  #all(): SoldEntry[] {
    if (!this.#path) return [];
    const out: SoldEntry[] = [];
    for (const file of [`${this.#path}.1`, this.#path])
      if (existsSync(file)) out.push(...parseLines(readFileSync(file, 'utf8')));
    return out;
  }

  async since(sinceMs: number): Promise<SoldEntry[]> {
    return this.#all().filter((e) => seenAtMs(e) >= sinceMs);
  }

  /** From the file's tail: a status page asks every few seconds, and the file may hold megabytes. */
  async latest(limit: number): Promise<SoldEntry[]> {
    if (!this.#path || !existsSync(this.#path)) return [];
    return parseLines(readTail(this.#path, LATEST_TAIL_BYTES)).slice(-limit).reverse();
  }

  async countSince(sinceMs: number): Promise<number> {
    return (await this.since(sinceMs)).length;
  }
}

const LATEST_TAIL_BYTES = 64 * 1024;

async function readPending(store: Pick<StateStore, 'getMeta'>): Promise<SoldEntry[]> {
  const text = await store.getMeta(PENDING_SALES_KEY);
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as SoldEntry[]).filter((e) => typeof e?.sale_key === 'string') : [];
  } catch {
    return [];
  }
}

function parseLines(text: string): SoldEntry[] {
  const out: SoldEntry[] = [];
  for (const line of text.split('\n')) {
    try {
      const e = JSON.parse(line) as SoldEntry;
      if (typeof e.kind === 'string' && typeof e.external_id === 'string') out.push(e);
    } catch {
      // A blank line, a line cut by the tail's start, or one torn by a crash: skipped.
    }
  }
  return out;
}

/**
 * The last `bytes` of a file (all of it when smaller). Its first line is cut unless the cut falls on a line start;
 * parseLines skips a cut line, and keeps a whole one.
 */
function readTail(path: string, bytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
