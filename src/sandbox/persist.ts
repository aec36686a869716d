// The store as a JSON file: read once at start, rewritten (temp file + rename) after every mutation, so a
// crash leaves either the old file or the new one, never half of one.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { SandboxStore } from './store.ts';

export function loadStore(file: string | undefined): SandboxStore {
  if (!file || !existsSync(file)) return new SandboxStore();
  try {
    return SandboxStore.fromJSON(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new Error(`sandbox persist file ${file}: ${(err as Error).message}`);
  }
}

export function saveStore(file: string | undefined, store: SandboxStore): void {
  if (!file) return;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(store.toJSON()));
  renameSync(tmp, file);
}
