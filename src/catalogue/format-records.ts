// Catalogue records to the text of a catalogue file, in any of its formats: what `offersync pull` writes. Each
// format is written so that the loader (formats/) reads back the same values: CSV with a comma, a header row,
// '|' between list items and quotes where a cell needs them; YAML strings quoted where YAML would read a number;
// .xlsx and .ods with a header row, dotted columns for nested fields, and strings (prices "19.99") as text cells.
import { writeOds } from 'hucre/ods';
import { writeXlsx } from 'hucre/xlsx';
import { stringify } from 'yaml';
import type { JsonValue } from './desired-offer.ts';
import type { Format, SheetFormat, TextFormat } from './layout.ts';

type CatalogueRecord = { readonly [field: string]: JsonValue };

/** File extension of each format. */
export const FORMAT_EXTENSION: Readonly<Record<Format, string>> = {
  json: 'json',
  ndjson: 'ndjson',
  csv: 'csv',
  yaml: 'yaml',
  xlsx: 'xlsx',
  ods: 'ods',
};

export function formatRecords(format: TextFormat, records: readonly CatalogueRecord[]): string {
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

/** Records as a workbook of one sheet named `sheet` (the folder's name, so the reader picks it). */
export async function formatSheet(
  format: SheetFormat,
  sheet: string,
  records: readonly CatalogueRecord[],
): Promise<Uint8Array> {
  const columns: string[] = [];
  const flat = records.map((r) => {
    const row: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(r)) {
      if (v !== null && typeof v === 'object' && !Array.isArray(v))
        for (const [inner, x] of Object.entries(v)) row[`${k}.${inner}`] = cellValue(x);
      else row[k] = cellValue(v);
    }
    for (const k of Object.keys(row)) if (!columns.includes(k)) columns.push(k);
    return row;
  });
  if (columns.length === 0) columns.push('external_id');
  const rows = [columns, ...flat.map((r) => columns.map((c) => r[c] ?? null))];
  const options = { sheets: [{ name: sheet, rows }] };
  return format === 'xlsx' ? writeXlsx(options) : writeOds(options);
}

/** A cell: numbers and booleans keep their type, lists are joined by '|', deeper objects written as JSON. */
function cellValue(v: JsonValue | undefined): string | number | boolean {
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  return csvValue(v);
}
