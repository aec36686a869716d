// pull's gallery: the images its accounts carry (by image_ids, whose urls the image list gives, or by image_urls
// alone), downloaded from their public address (never with the API key: the address may be another host) into
// images/ of the pulled catalogue, each file named by its content, so that the accounts name them by path.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface GalleryResult {
  /** Files written, relative to the catalogue: images/<sha256 prefix>.<ext>, each once. */
  readonly written: readonly string[];
  /** The file of each url downloaded (the url as the marketplace gave it). */
  readonly byUrl: ReadonlyMap<string, string>;
  /** One line per image that could not be downloaded, naming it and why. */
  readonly failed: readonly string[];
}

/** The extension a file of these first bytes takes (the types the marketplace accepts), else 'bin'. */
export function extensionOf(bytes: Uint8Array): string {
  const b = (i: number) => bytes[i] ?? -1;
  if (b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47) return 'png';
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'jpg';
  if (b(0) === 0x47 && b(1) === 0x49 && b(2) === 0x46) return 'gif';
  if (b(0) === 0x52 && b(1) === 0x49 && b(2) === 0x46 && b(3) === 0x46 && b(8) === 0x57 && b(9) === 0x45) return 'webp';
  return 'bin';
}

/**
 * Downloads each url once (relative ones from the marketplace's origin). Equal contents share one file, so an
 * image uploaded twice is one file, uploaded once on another seller.
 */
export async function downloadGallery(
  urls: readonly string[],
  dir: string,
  opts: { readonly baseUrl: string; readonly maxBytes: number; readonly timeoutMs: number },
): Promise<GalleryResult> {
  const written: string[] = [];
  const byUrl = new Map<string, string>();
  const failed: string[] = [];
  for (const url of [...new Set(urls)].sort()) {
    let address: URL;
    try {
      address = new URL(url, opts.baseUrl);
    } catch {
      failed.push(`${url}: not a url`);
      continue;
    }
    try {
      const res = await fetch(address, { signal: AbortSignal.timeout(opts.timeoutMs), redirect: 'follow' });
      if (!res.ok) {
        await res.body?.cancel();
        failed.push(`${url}: GET answered ${res.status}`);
        continue;
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.length > opts.maxBytes) {
        failed.push(`${url}: ${bytes.length} bytes, more than catalogue.maxImageBytes (${opts.maxBytes})`);
        continue;
      }
      const sha = createHash('sha256').update(bytes).digest('hex');
      const rel = `images/${sha.slice(0, 16)}.${extensionOf(bytes)}`;
      if (!written.includes(rel)) {
        writeFileSync(join(dir, rel), bytes);
        written.push(rel);
      }
      byUrl.set(url, rel);
    } catch (err) {
      failed.push(`${url}: GET failed: ${(err as Error).message}`);
    }
  }
  return { written, byUrl, failed };
}
