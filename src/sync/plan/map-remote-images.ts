// The gallery as the marketplace already holds it, mapped before planning so that nothing is uploaded twice:
// a catalogue image whose sha256 the state db does not know (a lost or new state db) is looked for among the
// seller's uploaded images by content (each candidate downloaded and hashed), and an account answered with
// image_urls but no image_ids gets the ids those urls name. Reads only; the caller keeps the mapping.
import { createHash } from 'node:crypto';
import type { DesiredOffer, ImageRef } from '../../catalogue/desired-offer.ts';
import type { Logger } from '../../log/logger.ts';
import type { MarketplaceClient, RemoteImage, RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { ImageRecord } from '../../state/records.ts';
import type { KindSnapshot } from './remote-snapshot.ts';

/** The bytes at an image's public url; never sent with the API key (storage may be another host). */
export type DownloadImage = (url: string) => Promise<Uint8Array>;

export interface MapImagesDeps {
  readonly client: Pick<MarketplaceClient, 'images'>;
  readonly store: {
    listImages(): Promise<ImageRecord[]>;
    getOffer(kind: 'account', externalId: string): Promise<{ readonly remoteId: number | null } | undefined>;
  };
  readonly logger: Logger;
  readonly download: DownloadImage;
  readonly now: () => number;
}

export interface ImageMapping {
  /** Catalogue images found on the marketplace by content: the caller records them in the state db. */
  readonly records: readonly ImageRecord[];
  /** Gallery images downloaded to compare them (reads of public urls). */
  readonly downloaded: number;
  /** Whether the image list was read. */
  readonly listed: boolean;
}

/** A url by its path: an answer may give it relative (/storage/...) where the image list gives it whole. */
export function urlPath(url: string): string {
  try {
    const u = new URL(url, 'http://relative.invalid');
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** A fetch with a deadline and a size cap, without credentials. */
export function fetchImage(opts: { readonly timeoutMs: number; readonly maxBytes: number }): DownloadImage {
  return async (url) => {
    const res = await fetch(url, { signal: AbortSignal.timeout(opts.timeoutMs), redirect: 'follow' });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`GET ${url} answered ${res.status}`);
    }
    const length = Number(res.headers.get('content-length') ?? 0);
    if (length > opts.maxBytes) {
      await res.body?.cancel();
      throw new Error(`GET ${url}: ${length} bytes, more than ${opts.maxBytes}`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > opts.maxBytes) throw new Error(`GET ${url}: more than ${opts.maxBytes} bytes`);
    return bytes;
  };
}

/** Accounts answered with image_urls and without image_ids: their gallery is known by url only. */
function byUrlOnly(offers: ReadonlyMap<string, RemoteOffer>): RemoteOffer[] {
  const out: RemoteOffer[] = [];
  for (const o of offers.values())
    if (!Object.hasOwn(o.fields, 'image_ids') && Array.isArray(o.fields.image_urls) && o.fields.image_urls.length > 0)
      out.push(o);
  return out;
}

export async function mapRemoteImages(
  deps: MapImagesDeps,
  offers: readonly DesiredOffer[],
  accounts: KindSnapshot,
): Promise<ImageMapping> {
  const known = await deps.store.listImages();
  const knownSha = new Set(known.map((i) => i.sha256));
  const knownIds = new Set(known.map((i) => i.remoteId));
  const idByPath = new Map<string, number>();
  for (const i of known) if (i.url) idByPath.set(urlPath(i.url), i.remoteId);
  // Only the images of accounts the marketplace holds and the state db does not know (an adoption, as after a lost
  // state db) are looked for: a new image of a known account is new, and costs no read of the gallery.
  const wanted = new Map<string, ImageRef>();
  const withGallery = new Set<string>();
  for (const d of offers) {
    if (d.kind !== 'account') continue;
    if (d.images.length > 0 || (d.fields.image_ids?.length ?? 0) > 0) withGallery.add(d.externalId);
    const live = accounts.offers.get(d.externalId);
    const missing = d.images.filter((img) => !knownSha.has(img.sha256) && !wanted.has(img.sha256));
    if (!live || missing.length === 0) continue;
    if ((await deps.store.getOffer('account', d.externalId))?.remoteId === live.id) continue;
    for (const img of missing) wanted.set(img.sha256, img);
  }
  // Accounts the catalogue gives a gallery: others' image_ids are never compared.
  const urlOnly = byUrlOnly(accounts.offers).filter((o) => withGallery.has(o.externalId));
  const unmapped = urlOnly.some((o) => (o.fields.image_urls as unknown[]).some((u) => !idOf(u, idByPath)));

  let listed = false;
  const records: ImageRecord[] = [];
  let downloaded = 0;
  if (wanted.size > 0 || unmapped) {
    const remote = await deps.client.images.list();
    listed = true;
    for (const r of remote) if (r.url) idByPath.set(urlPath(r.url), r.id);
    const found = await findByContent(deps, remote, wanted, knownIds);
    downloaded = found.downloaded;
    records.push(...found.records);
    if (records.length > 0)
      deps.logger.info({ found: records.length, downloaded }, 'gallery images found on the marketplace by content');
  }
  withImageIds(accounts, urlOnly, idByPath);
  return { records, downloaded, listed };
}

function idOf(url: unknown, idByPath: ReadonlyMap<string, number>): number | undefined {
  return typeof url === 'string' ? idByPath.get(urlPath(url)) : undefined;
}

/**
 * Downloads the uploaded images that may hold a wanted file (same size, where the list gives sizes) and keeps
 * those whose sha256 is wanted. The lowest id wins where the seller uploaded the same file twice.
 */
async function findByContent(
  deps: MapImagesDeps,
  remote: readonly RemoteImage[],
  wanted: ReadonlyMap<string, ImageRef>,
  knownIds: ReadonlySet<number>,
): Promise<{ records: ImageRecord[]; downloaded: number }> {
  if (wanted.size === 0) return { records: [], downloaded: 0 };
  const sizes = new Set([...wanted.values()].map((w) => w.sizeBytes));
  const candidates = [...remote]
    .filter((r) => r.url && !knownIds.has(r.id) && (r.sizeBytes === undefined || sizes.has(r.sizeBytes)))
    .sort((a, b) => a.id - b.id);
  const records: ImageRecord[] = [];
  const taken = new Set<string>();
  let downloaded = 0;
  for (const r of candidates) {
    if (taken.size === wanted.size) break;
    let bytes: Uint8Array;
    try {
      bytes = await deps.download(r.url!);
      downloaded++;
    } catch (err) {
      deps.logger.warn({ imageId: r.id, err: (err as Error).message }, 'gallery image not downloaded: not compared');
      continue;
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (!wanted.has(sha256) || taken.has(sha256)) continue;
    taken.add(sha256);
    records.push({ sha256, remoteId: r.id, url: r.url ?? null, uploadedAt: deps.now() });
  }
  return { records, downloaded };
}

/**
 * The image_ids of each account answered by url only, where every url names a known image: compared then as the
 * document's image_ids are. An account with a url no image has keeps none (not echoed: compared with last applied).
 */
function withImageIds(
  accounts: KindSnapshot,
  urlOnly: readonly RemoteOffer[],
  idByPath: ReadonlyMap<string, number>,
): void {
  const offers = accounts.offers as Map<string, RemoteOffer>;
  for (const o of urlOnly) {
    const ids = (o.fields.image_urls as unknown[]).map((u) => idOf(u, idByPath));
    if (ids.some((id) => id === undefined)) continue;
    offers.set(o.externalId, { ...o, fields: { ...o.fields, image_ids: ids } });
  }
}
