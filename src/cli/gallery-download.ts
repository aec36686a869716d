// pull's gallery: the images its accounts carry by image_ids, downloaded from the public address the image list
// gives (never with the API key: the address may be another host) into images/ of the pulled catalogue.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RemoteImage } from '../marketplace/marketplace-client.ts';

export interface GalleryResult {
  /** Files written, relative to the catalogue: images/<id>.<ext>. */
  readonly written: readonly string[];
  /** One line per image that could not be downloaded, naming it and why. */
  readonly failed: readonly string[];
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

function extensionOf(image: RemoteImage): string {
  const byType = image.mimeType ? EXTENSIONS[image.mimeType.toLowerCase()] : undefined;
  if (byType) return byType;
  const name = image.originalName ?? image.filename ?? image.url ?? '';
  const m = /\.([a-z0-9]{1,5})$/i.exec(name.split('?')[0] ?? '');
  return m ? m[1]!.toLowerCase() : 'bin';
}

export async function downloadGallery(
  ids: ReadonlySet<number>,
  images: readonly RemoteImage[],
  dir: string,
  opts: { readonly maxBytes: number; readonly timeoutMs: number },
): Promise<GalleryResult> {
  const byId = new Map(images.map((i) => [i.id, i]));
  const written: string[] = [];
  const failed: string[] = [];
  for (const id of [...ids].sort((a, b) => a - b)) {
    const image = byId.get(id);
    if (!image?.url) {
      failed.push(`image ${id}: ${image ? 'the image list gives no url for it' : 'not in the image list'}`);
      continue;
    }
    try {
      const res = await fetch(image.url, { signal: AbortSignal.timeout(opts.timeoutMs), redirect: 'follow' });
      if (!res.ok) {
        await res.body?.cancel();
        failed.push(`image ${id}: GET ${image.url} answered ${res.status}`);
        continue;
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.length > opts.maxBytes) {
        failed.push(`image ${id}: ${bytes.length} bytes, more than catalogue.maxImageBytes (${opts.maxBytes})`);
        continue;
      }
      const rel = `images/${id}.${extensionOf(image)}`;
      writeFileSync(join(dir, rel), bytes);
      written.push(rel);
    } catch (err) {
      failed.push(`image ${id}: GET ${image.url} failed: ${(err as Error).message}`);
    }
  }
  return { written, failed };
}
