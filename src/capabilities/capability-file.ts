// What offersync learnt of the marketplace (a route it serves, the key a bulk route reads, a batch limit) kept in
// a file of its own beside the state db as well as in it: a lost or new state db then starts from what was learnt,
// instead of learning it again through a refused write. Holds no offer and no secret.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { CapabilityRecord } from '../state/records.ts';

/** What the file needs of the state db. */
export interface CapabilityTable {
  getCapability(name: string): Promise<CapabilityRecord | undefined>;
  setCapability(name: string, usable: boolean, detail?: string | null): Promise<void>;
  listCapabilities(): Promise<CapabilityRecord[]>;
}

/** Beside a state db on disk; none for a state in memory or in PostgreSQL (shared, and never lost alone). */
export function capabilityFilePath(statePath: string, stateUrl: string | undefined): string | null {
  return stateUrl || statePath === ':memory:' ? null : `${statePath}.capabilities.json`;
}

function isRecord(v: unknown): v is CapabilityRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.name === 'string' &&
    typeof r.usable === 'boolean' &&
    (r.detail === null || typeof r.detail === 'string') &&
    typeof r.learntAt === 'number'
  );
}

/** The records the file holds; none when it is missing or unreadable (it is only a copy). */
export function readCapabilityFile(path: string): CapabilityRecord[] {
  if (!existsSync(path)) return [];
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return Array.isArray(parsed) ? parsed.filter(isRecord) : [];
  } catch {
    return [];
  }
}

/** Written whole, then renamed into place: a crash mid-write leaves the previous file. */
export function writeCapabilityFile(path: string, records: readonly CapabilityRecord[]): void {
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(records, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Copies into the state db each record of the file it does not hold. Returns how many. */
export async function restoreCapabilities(table: CapabilityTable, path: string): Promise<number> {
  let restored = 0;
  for (const r of readCapabilityFile(path)) {
    if (await table.getCapability(r.name)) continue;
    await table.setCapability(r.name, r.usable, r.detail);
    restored++;
  }
  return restored;
}

/**
 * The store, its capability writes also kept in the file. Every other call goes to the store itself. A file that
 * cannot be written costs only the copy: the state db holds the verdict all the same.
 */
export function withCapabilityFile<S extends CapabilityTable>(store: S, path: string, onError: (e: Error) => void): S {
  const setCapability = async (name: string, usable: boolean, detail?: string | null): Promise<void> => {
    await store.setCapability(name, usable, detail);
    try {
      writeCapabilityFile(path, await store.listCapabilities());
    } catch (err) {
      onError(err as Error);
    }
  };
  // Each method bound once (again only if the store's own was replaced): every write of a run calls through here.
  const bound = new Map<PropertyKey, { readonly of: unknown; readonly fn: unknown }>();
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'setCapability') return setCapability;
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      const hit = bound.get(prop);
      if (hit?.of === v) return hit.fn;
      const fn: unknown = v.bind(target);
      bound.set(prop, { of: v, fn });
      return fn;
    },
  });
}
