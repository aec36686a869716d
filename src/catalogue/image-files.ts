// Gallery images named by offers: catalogue-relative paths, checked to stay inside the catalogue (after
// symlinks), to exist, to be an image by its first bytes (not its name), and to be small enough.
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { ImageRef } from './desired-offer.ts';
import { sha256Hex } from './hash.ts';

export type ImageCheck = { readonly image: ImageRef } | { readonly error: string };

/** MIME type from magic bytes: PNG, JPEG, GIF, WEBP. */
export function sniffImageMime(buf: Uint8Array): string | undefined {
  const b = buf;
  if (
    b.length >= 8 &&
    b[0] === 0x89 &&
    b[1] === 0x50 &&
    b[2] === 0x4e &&
    b[3] === 0x47 &&
    b[4] === 0x0d &&
    b[5] === 0x0a &&
    b[6] === 0x1a &&
    b[7] === 0x0a
  )
    return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  const head = Buffer.from(b.subarray(0, 12)).toString('latin1');
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'image/gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** Whether an absolute path is the root or lies beneath it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Normalises a catalogue-relative path written by the seller; undefined when it leaves the catalogue. */
export function catalogueRelative(written: string): string | undefined {
  const p = written.replace(/\\/g, '/').replace(/^\.\//, '');
  if (p.startsWith('/') || /^[a-zA-Z]:/.test(p)) return undefined;
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.length > 0 ? parts.join('/') : undefined;
}

export async function checkImage(
  dir: string,
  rootReal: string,
  written: string,
  maxBytes: number,
): Promise<ImageCheck> {
  const rel = catalogueRelative(written);
  if (rel === undefined)
    return {
      error: `image path '${written}' leaves the catalogue directory: give a path inside it, such as images/photo.png`,
    };
  const absPath = join(dir, rel);
  let real: string;
  try {
    real = await realpath(absPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return {
        error: `image '${rel}' does not exist: paths are relative to the catalogue directory (images/photo.png)`,
      };
    if (code === 'ELOOP') return { error: `image '${rel}' is a symlink loop` };
    return { error: `image '${rel}' cannot be read: ${code ?? (err as Error).message}` };
  }
  if (!isInside(rootReal, real))
    return { error: `image '${rel}' is a symlink that leads outside the catalogue directory: copy the file into it` };
  try {
    const st = await stat(real);
    if (!st.isFile()) return { error: `image '${rel}' is not a file` };
    if (st.size > maxBytes)
      return {
        error:
          `image '${rel}' is ${formatBytes(st.size)}, more than the ${formatBytes(maxBytes)} allowed: make it ` +
          `smaller`,
      };
    const buf = await readFile(real);
    if (buf.length > maxBytes)
      return {
        error:
          `image '${rel}' is ${formatBytes(buf.length)}, more than the ${formatBytes(maxBytes)} allowed: make ` +
          `it smaller`,
      };
    const mimeType = sniffImageMime(buf);
    if (!mimeType) return { error: `'${rel}' is not an image (PNG, JPEG, GIF or WEBP, judged by its content)` };
    return { image: { path: rel, absPath, sha256: sha256Hex(buf), sizeBytes: buf.length, mimeType } };
  } catch (err) {
    return { error: `image '${rel}' cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
  return `${n} bytes`;
}
