// Which files of the catalogue directory are read, and as what. Shared by the loader and the watcher, so
// that both ignore the same files.
import type { OfferKind } from './desired-offer.ts';

/** Top-level folders holding offers, and the kind each holds. */
export const KIND_FOLDERS: Readonly<Record<string, OfferKind>> = {
  accounts: 'account',
  items: 'item',
  'top-ups': 'topup',
};
export const IMAGES_FOLDER = 'images';

export const FORMATS = ['json', 'ndjson', 'csv', 'yaml', 'xlsx', 'ods'] as const;
export type Format = (typeof FORMATS)[number];
/** Spreadsheet workbooks: binary, read by formats/sheet.ts. */
export type SheetFormat = Extract<Format, 'xlsx' | 'ods'>;
/** The formats that are text, read by formats.ts. */
export type TextFormat = Exclude<Format, SheetFormat>;

export const TEXT_FORMATS: readonly TextFormat[] = ['json', 'ndjson', 'csv', 'yaml'];

export function isSheetFormat(f: Format): f is SheetFormat {
  return f === 'xlsx' || f === 'ods';
}
const EXTENSIONS: Readonly<Record<string, Format>> = {
  json: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  csv: 'csv',
  yaml: 'yaml',
  yml: 'yaml',
  xlsx: 'xlsx',
  ods: 'ods',
};
// Not offers but harmless beside them: ignored without a warning.
const NOTES = new Set(['md', 'txt']);

export type PathClass =
  | { readonly type: 'offers'; readonly kind: OfferKind; readonly format: Format }
  | { readonly type: 'image' }
  | { readonly type: 'ignored'; readonly reason: string }
  | { readonly type: 'unsupported'; readonly kind: OfferKind };

/** Editor swap, backup and temp files, dotfiles, and the owner file Excel keeps beside an open workbook (~$a.xlsx). */
export function isIgnoredName(base: string): boolean {
  return (
    base.startsWith('.') ||
    base.startsWith('~$') ||
    base.endsWith('~') ||
    base.endsWith('.swp') ||
    base.endsWith('.swo') ||
    base.endsWith('.swx') ||
    base.endsWith('.tmp') ||
    base.endsWith('.part') ||
    base.endsWith('.crdownload') ||
    (base.startsWith('#') && base.endsWith('#')) ||
    base === '4913' // vim's write-permission probe
  );
}

/** What a catalogue-relative file path (forward slashes) is. */
export function classify(rel: string): PathClass {
  const parts = rel.split('/');
  const base = parts[parts.length - 1]!;
  if (parts.some(isIgnoredName)) return { type: 'ignored', reason: 'dotfile or editor swap/temp file' };
  if (parts.length < 2) return { type: 'ignored', reason: 'outside the accounts, items, top-ups and images folders' };
  const top = parts[0]!;
  if (top === IMAGES_FOLDER) return { type: 'image' };
  const kind = KIND_FOLDERS[top];
  if (!kind) return { type: 'ignored', reason: 'outside the accounts, items, top-ups and images folders' };
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  const format = EXTENSIONS[ext];
  if (format) return { type: 'offers', kind, format };
  if (NOTES.has(ext) || /^readme/i.test(base)) return { type: 'ignored', reason: 'notes file' };
  return { type: 'unsupported', kind };
}

export const SUPPORTED_EXTENSIONS = Object.keys(EXTENSIONS);

/**
 * A spreadsheet in a kind folder that offersync cannot read (.xls, .xlsm, .xlsb, .numbers): it most likely holds
 * offers (a workbook saved in the wrong format), so the catalogue is incomplete while it is there.
 */
export function isUnreadSpreadsheet(rel: string): boolean {
  return /\.(xls|xlsm|xlsb|numbers)$/i.test(rel) && classify(rel).type === 'unsupported';
}

/** Kind names accepted in a file's `kind` key. */
export function parseKindName(value: unknown): OfferKind | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value
    .trim()
    .toLowerCase()
    .replace(/[\s_-]/g, '');
  if (v === 'account' || v === 'accounts') return 'account';
  if (v === 'item' || v === 'items') return 'item';
  if (v === 'topup' || v === 'topups') return 'topup';
  return undefined;
}
