// Where `pull` may write: never over the seller's own data without being told. The configured catalogue folder is
// written into only with --overwrite, and a file pull would replace is refused while it holds what the marketplace
// did not return (external_ids, credentials, comments), unless --overwrite; then a backup is kept beside it.
import { copyFileSync, existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { OfferKind } from '../catalogue/desired-offer.ts';
import { decodeText, streamFile } from '../catalogue/formats.ts';
import type { RawRecord } from '../catalogue/formats/parsed-file.ts';
import { streamSheet } from '../catalogue/formats/sheet.ts';
import { classify, type Format, isSheetFormat } from '../catalogue/layout.ts';

/** One file pull is about to write. */
export interface PullFile {
  /** Catalogue-relative, forward slashes. */
  readonly rel: string;
  readonly kind: OfferKind;
  readonly format: Format;
  /** external_ids of the offers pull writes into it. */
  readonly externalIds: ReadonlySet<string>;
}

/** What the seller would lose in one file: each a short phrase ("credentials", "comments", ...). */
export interface AtRisk {
  readonly rel: string;
  readonly holds: readonly string[];
}

/** Whether `out` is the configured catalogue folder (or inside it) and already holds offer files. */
export function isLiveCatalogue(out: string, catalogueDir: string): boolean {
  const real = (p: string): string => (existsSync(p) ? realpathSync(p) : resolve(p));
  const rel = relative(real(catalogueDir), real(out));
  if (rel.startsWith('..') || resolve(rel) === rel) return false;
  if (!existsSync(out)) return false;
  return readdirSync(out, { recursive: true, encoding: 'utf8' }).some(
    (f) => classify(f.split(sep).join('/')).type === 'offers',
  );
}

/** The message of a refused write into the configured catalogue. */
export function liveCatalogueRefusal(shown: string): string {
  return (
    `${shown} is the catalogue offersync syncs (catalogue.dir): pull would replace the seller's own files in it. ` +
    'Nothing was written. Pull into another folder and compare, or give --overwrite to write into it ' +
    '(each file replaced is kept beside it as a backup)'
  );
}

/** Files pull would replace that hold what the marketplace did not return. */
export async function filesAtRisk(out: string, files: readonly PullFile[], maxBytes: number): Promise<AtRisk[]> {
  const risks: AtRisk[] = [];
  for (const f of files) {
    const path = resolve(out, f.rel);
    if (!existsSync(path)) continue;
    const holds = await sellerData(readFileSync(path), f, maxBytes);
    if (holds.length > 0) risks.push({ rel: f.rel, holds });
  }
  return risks;
}

export function atRiskRefusal(shown: string, risks: readonly AtRisk[]): string {
  const each = risks.map((r) => `${shown}/${r.rel} holds ${r.holds.join(', ')}`).join('; ');
  return (
    `${each}: the marketplace did not return these, so pull would lose them. Nothing was written. Pull into ` +
    'another folder and compare, or give --overwrite to replace them (each file is kept beside it as a backup)'
  );
}

/** Copies each existing file pull is about to replace to `<file>.backup-<time>~` (ignored by the catalogue). */
export function backUp(out: string, files: readonly PullFile[], now: Date): string[] {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const made: string[] = [];
  for (const f of files) {
    const path = resolve(out, f.rel);
    if (!existsSync(path)) continue;
    const backup = `${f.rel}.backup-${stamp}~`;
    copyFileSync(path, resolve(out, backup));
    made.push(backup);
  }
  return made;
}

/** What a file holds that pull would not write back: unknown external_ids, credentials, comments, or unread data. */
async function sellerData(buf: Uint8Array, f: PullFile, maxBytes: number): Promise<string[]> {
  const holds = new Set<string>();
  const unknownIds: string[] = [];
  const look = (r: RawRecord): void => {
    const v = r.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
    const o = v as Record<string, unknown>;
    const id = o.external_id;
    if ((typeof id === 'string' || typeof id === 'number') && !f.externalIds.has(String(id).trim()))
      unknownIds.push(String(id));
    if (o.credentials !== undefined && o.credentials !== null) holds.add('credentials');
  };
  let unreadable = false;
  if (isSheetFormat(f.format)) {
    const s = streamSheet(f.format, buf, { kind: f.kind, maxUnpackedBytes: maxBytes });
    let step = await s.records.next();
    for (; !step.done; step = await s.records.next()) look(step.value);
    unreadable = step.value.unreadable;
  } else {
    const decoded = decodeText(buf, f.format);
    if ('error' in decoded) return ['content offersync cannot read'];
    if (hasComments(decoded.text, f.format)) holds.add('comments');
    const s = streamFile(f.format, decoded.text, { kind: f.kind });
    let step = s.records.next();
    for (; !step.done; step = s.records.next()) look(step.value);
    unreadable = step.value.unreadable;
  }
  const out: string[] = [];
  if (unknownIds.length > 0) {
    const shown = unknownIds.slice(0, 5).join(', ');
    const more = unknownIds.length > 5 ? ` and ${unknownIds.length - 5} more` : '';
    out.push(`external_ids the marketplace did not return (${shown}${more})`);
  }
  out.push(...holds);
  if (unreadable) out.push('content offersync cannot read');
  return out;
}

/** YAML comments, and the '#' lines some CSV files keep; JSON and NDJSON have none. */
function hasComments(text: string, format: Format): boolean {
  if (format === 'yaml') return /(^|\s)#/m.test(text);
  if (format === 'csv') return /^\s*#/m.test(text);
  return false;
}
