// With the room a default heap limit gives (about 4 GB on a large machine), V8 lets the heap grow to several
// times the live data between full collections: a 100,000-offer run with 140 MB live peaked at 450 MB RSS.
// --optimize-for-size makes it collect sooner and grow less, at a cost in CPU: a first sync of 3,000 offers made
// 235 young collections with it and 20 without, and a third of its CPU went on collecting and compiling. Every
// command starts with it (turned on later, the young generation has already grown while the modules loaded: 40 MB
// more at 100,000 offers); reconcile and plan turn it off again once they see their catalogue is small. V8 reads
// this flag as it goes; a heap limit given on the command line or in NODE_OPTIONS (the container's entrypoint sets
// one) still applies on top.
// A small catalogue also runs in V8's efficiency mode: a function is optimized by its top compiler only after about
// 15,000 calls instead of 3,000, and garbage is collected without helper threads. A first sync of 3,000 offers then
// spent 0.1 s of CPU on V8's own threads instead of 0.4, and its whole CPU fell by a tenth. Not a large catalogue:
// without helper threads its heap grew by 100 MB (a 100,000-offer first sync peaked at 349 MB). The daemon and the
// sandbox, servers, never call this: they keep V8's usual tiering.
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { IMAGES_FOLDER } from '../catalogue/layout.ts';

/** Catalogue files past which memory stays first: about 20,000 offers as NDJSON or CSV. */
export const LARGE_CATALOGUE_BYTES = 2 * 2 ** 20;

/** From now on. */
export function favourMemoryOverSpeed(): void {
  setFlagsFromString('--optimize-for-size');
}

/** From now on: undoes favourMemoryOverSpeed, and compiles and collects for the least CPU in all. */
export function favourSpeedOverMemory(): void {
  setFlagsFromString('--no-optimize-for-size');
  setFlagsFromString('--efficiency-mode');
}

/**
 * The bytes of the files under `dirs` but not under `skipped`, counted until `atLeast` is reached; a folder that
 * cannot be read counts 0.
 */
export function filesBytes(dirs: readonly string[], atLeast: number, skipped: ReadonlySet<string> = new Set()): number {
  let total = 0;
  const pending = [...dirs];
  while (pending.length > 0 && total < atLeast) {
    const dir = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (total >= atLeast) break;
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (!skipped.has(path)) pending.push(path);
      } else if (e.isFile()) total += statSync(path, { throwIfNoEntry: false })?.size ?? 0;
    }
  }
  return total;
}

/**
 * Whether the catalogues under `dirs` hold more than `aboveBytes` of offers: memory then stays before speed. Their
 * images folders do not count: an image is read when it is uploaded, one at a time.
 */
export function isLargeCatalogue(dirs: readonly string[], aboveBytes = LARGE_CATALOGUE_BYTES): boolean {
  return filesBytes(dirs, aboveBytes + 1, new Set(dirs.map((d) => join(d, IMAGES_FOLDER)))) > aboveBytes;
}
