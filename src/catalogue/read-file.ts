// Reads one catalogue file whole, within a size limit, without following a symlink out of the catalogue.
// A file that disappears meanwhile is "vanished", not an error: the watcher reports its removal next.
import { open, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { formatBytes, isInside } from './images.ts';

export type ReadResult =
  | { readonly buf: Buffer }
  | { readonly error: string }
  | { readonly vanished: true };

/** What the reader needs of the file system; tests pass one that misbehaves. */
export interface CatalogueFs {
  open: typeof open;
  realpath: typeof realpath;
}

export const nodeFs: CatalogueFs = { open, realpath };

export async function readCatalogueFile(
  dir: string,
  rootReal: string,
  rel: string,
  maxBytes: number,
  opts: { checkRealpath: boolean; fs?: CatalogueFs },
): Promise<ReadResult> {
  const fs = opts.fs ?? nodeFs;
  const abs = join(dir, rel);
  try {
    if (opts.checkRealpath) {
      const real = await fs.realpath(abs);
      if (!isInside(rootReal, real)) return { error: 'this file is a symlink that leads outside the catalogue directory: copy the file into the catalogue instead' };
    }
    const fh = await fs.open(abs, 'r');
    try {
      const st = await fh.stat();
      if (!st.isFile()) return { error: 'not a regular file' };
      if (st.size > maxBytes) return { error: `the file is ${formatBytes(st.size)}, more than the ${formatBytes(maxBytes)} allowed (catalogue.maxFileBytes): split it into smaller files` };
      const buf = await fh.readFile();
      if (buf.length > maxBytes) return { error: `the file is ${formatBytes(buf.length)}, more than the ${formatBytes(maxBytes)} allowed (catalogue.maxFileBytes): split it into smaller files` };
      return { buf };
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { vanished: true };
    if (code === 'ELOOP') return { error: 'this symlink is a loop (it leads back to itself)' };
    return { error: `cannot read the file: ${code ?? (err as Error).message}` };
  }
}
