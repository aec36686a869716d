// Reads one catalogue file whole, within a size limit, without following a symlink out of the catalogue.
// A file that disappears meanwhile is "vanished", not an error: the watcher reports its removal next.
// Synchronous on purpose: for thousands of small files it is six times faster than fs/promises (measured:
// 10k files 113 ms against 720 ms); the loader yields to the event loop between files.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatBytes, isInside } from './image-files.ts';

export type ReadResult = { readonly buf: Buffer } | { readonly error: string } | { readonly vanished: true };

/** What the reader needs of the file system; tests pass one that misbehaves. */
export interface CatalogueFs {
  statSync(path: string): { size: number; isFile(): boolean };
  readFileSync(path: string): Buffer;
  realpathSync(path: string): string;
}

export const nodeFs: CatalogueFs = { statSync, readFileSync, realpathSync };

export function readCatalogueFile(
  dir: string,
  rootReal: string,
  rel: string,
  maxBytes: number,
  opts: { checkRealpath: boolean; fs?: CatalogueFs },
): ReadResult {
  const fs = opts.fs ?? nodeFs;
  const abs = join(dir, rel);
  const tooBig = (n: number): ReadResult => ({
    error:
      `the file is ${formatBytes(n)}, more than the ${formatBytes(maxBytes)} allowed ` +
      `(catalogue.maxFileBytes): split it into smaller files`,
  });
  try {
    if (opts.checkRealpath) {
      const real = fs.realpathSync(abs);
      if (!isInside(rootReal, real))
        return {
          error:
            'this file is a symlink that leads outside the catalogue directory: copy the file into the catalogue ' +
            'instead',
        };
    }
    const st = fs.statSync(abs);
    if (!st.isFile()) return { error: 'not a regular file' };
    if (st.size > maxBytes) return tooBig(st.size);
    const buf = fs.readFileSync(abs);
    // It may have grown between stat and read.
    if (buf.length > maxBytes) return tooBig(buf.length);
    return { buf };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { vanished: true };
    if (code === 'ELOOP') return { error: 'this symlink is a loop (it leads back to itself)' };
    return { error: `cannot read the file: ${code ?? (err as Error).message}` };
  }
}
