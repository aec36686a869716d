// Catalogue records to the text of a catalogue file, in any of its formats: what `offersync pull` writes. Each
// format is written so that the loader (formats/) reads back the same values: CSV with a comma, a header row,
// '|' between list items and quotes where a cell needs them; YAML strings quoted where YAML would read a number.
import { stringify } from 'yaml';
import type { JsonValue } from './desired-offer.ts';
import type { Format } from './layout.ts';

type CatalogueRecord = { readonly [field: string]: JsonValue };

/** File extension of each format. */
export const FORMAT_EXTENSION: Readonly<Record<Format, string>> = {
  json: 'json',
  ndjson: 'ndjson',
  csv: 'csv',
  yaml: 'yaml',
};

export function formatRecords(format: Format, records: readonly CatalogueRecord[]): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(records, null, 2)}\n`;
    case 'ndjson':
      return records.map((r) => `${JSON.stringify(r)}\n`).join('');
    case 'yaml':
      return records.length === 0 ? '[]\n' : stringify(records, { lineWidth: 0 });
    case 'csv':
      return csvText(records);
    default:
      return format satisfies never;
  }
}

function csvText(records: readonly CatalogueRecord[]): string {
  const columns: string[] = [];
  for (const r of records) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  if (columns.length === 0) columns.push('external_id');
  const rows = [columns.map(csvCell).join(',')];
  for (const r of records) rows.push(columns.map((c) => csvCell(csvValue(r[c]))).join(','));
  return `${rows.join('\r\n')}\r\n`;
}

/** A value as a cell: lists joined by '|', nested objects as JSON (the loader has no other form for them). */
function csvValue(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.map((x) => csvValue(x)).join('|');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function csvCell(s: string): string {
  return /[",\r\n]|^\s|\s$|^sep=/i.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
