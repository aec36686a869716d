// .xlsx and .ods catalogue files, read as CSV files are: one sheet (the one named for the folder's kind, 'Items',
// 'Top-ups', else the first), a header row (the first row with anything in it) naming the fields, dotted for nested
// ones, one offer a row. Cells keep their types: a number cell is a number, so a price with a fraction is in major
// units and a whole number is cents, as in JSON; a text cell is read as a CSV cell ('19.99', '24,99', 'a|b');
// booleans are true or false; a date is its ISO date; a formula is read by the value the program saved with it;
// a cell showing an error (#N/A, #DIV/0!) makes its offer invalid. Problems are placed at the cell, 'Sheet1!C3'.
// The workbook is hostile input: its ZIP directory is checked first (input/zip-guard.ts) and the rows and cells
// read are counted, so a zip bomb or a sheet of a million empty rows ends in one error, in bounded memory.
// Rows are unpacked and read one at a time (hucre's streaming readers); an .ods file's content is unpacked whole.
// streamSheet gives the locator and sheetRecords, which goes: open the workbook (openWorkbook), pick the sheet,
// scan the price column, read the header row (readHeader), then one record a row (rowRecord, a cell by cellValue).
import { streamOdsRows } from 'hucre/ods';
import { streamXlsxRows } from 'hucre/xlsx';
import { forbiddenKeyMessage, getOwn, isForbiddenKey, setOwn } from '../../input/forbidden-keys.ts';
import { checkZip, unzipEntry, type ZipEntry } from '../../input/zip-guard.ts';
import type { OfferKind } from '../desired-offer.ts';
import type { FieldSpec } from '../field-spec.ts';
import { cellField, headerKey, matchHeader, specOf } from '../headers.ts';
import type { SheetFormat } from '../layout.ts';
import { hasDecimalComma, isWholePrice, type PriceUnit, settingUnit } from '../price.ts';
import { ambiguousPriceMessage, PriceColumnScan } from '../price-column.ts';
import { CSV_LIST_FIELDS } from './csv.ts';
import {
  isPlainObject,
  type Locator,
  type ParseEnd,
  type ParseOptions,
  type ParseProblem,
  type PathInRecord,
  type Place,
  type RawRecord,
  type SheetStream,
} from './parsed-file.ts';

export interface SheetOptions extends Pick<ParseOptions, 'priceUnit' | 'ignoreColumns'> {
  /** The kind of the folder the file is in: names the sheet read and the fields the headers may name. */
  readonly kind: OfferKind;
  /** The most the workbook may unpack to (catalogue.maxFileBytes, as for a text file). */
  readonly maxUnpackedBytes: number;
}

/** Excel's own limits: a sheet past them is no spreadsheet a program wrote. */
const MAX_ROWS = 1_048_576;
/** Cells handed over, empty ones included: a catalogue of 100,000 offers of 40 columns is 4 million. */
const MAX_CELLS = 20_000_000;

/**
 * The reader parses an .xlsx file's shared-strings table (every distinct text of the workbook) whole, at about
 * 750 bytes of memory a string: measured, 1,000,000 strings (22 MB of XML) took 750 MB. A catalogue of 100,000
 * offers with four distinct texts each stays within both bounds.
 */
const MAX_SHARED_STRINGS = 500_000;
const MAX_SHARED_STRINGS_BYTES = 16 * 1024 * 1024;

/** How many strings a shared-strings table holds (its <si> elements), counted without parsing it. */
function sharedStringCount(xml: Uint8Array): number {
  const text = new TextDecoder().decode(xml);
  let n = 0;
  for (let at = text.indexOf('<si'); at >= 0; at = text.indexOf('<si', at + 3)) {
    const next = text.charCodeAt(at + 3);
    if (next === 62 /* > */ || next === 32 || next === 47 /* / */) n++;
  }
  return n;
}

const ERROR_VALUE = /^#(?:NULL!|DIV\/0!|VALUE!|REF!|NAME\?|NUM!|N\/A|SPILL!|CALC!|GETTING_DATA)$/;

/** Sheet names that hold a kind's offers, compared as headers are (case, spaces, dashes, underscores). */
const KIND_SHEETS: { readonly [K in OfferKind]: readonly string[] } = {
  account: ['accounts', 'account'],
  item: ['items', 'item'],
  topup: ['topups', 'topup'],
};

/** Column letters of a 0-based column index: 0 -> A, 26 -> AA. */
export function columnLetters(c: number): string {
  let s = '';
  for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A cell as spreadsheets name it: Sheet1!C3, 'My sheet'!C3. */
export function cellName(sheet: string, column: number, row: number): string {
  const ref = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`;
  return `${ref}!${columnLetters(column)}${row}`;
}

const XML_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function xmlText(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) =>
    e[0] === '#'
      ? String.fromCodePoint(Number.parseInt(e[1] === 'x' ? e.slice(2) : e.slice(1), e[1] === 'x' ? 16 : 10))
      : XML_ENTITIES[e]!,
  );
}

function attribute(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attrs);
  return m ? xmlText(m[1]!) : undefined;
}

function entryText(buf: Uint8Array, entry: ZipEntry | undefined): string | undefined {
  const bytes = entry && unzipEntry(buf, entry);
  return bytes ? new TextDecoder().decode(bytes) : undefined;
}

/** The workbook's sheet names in order; undefined when the reader is left to find the first. */
function xlsxSheetNames(buf: Uint8Array, entries: ReadonlyMap<string, ZipEntry>): string[] | undefined {
  const xml = entryText(buf, entries.get('xl/workbook.xml'));
  if (xml === undefined) return undefined;
  const names: string[] = [];
  for (const m of xml.matchAll(/<(?:\w+:)?sheet\s([^>]*)>/g)) {
    const name = attribute(m[1]!, 'name');
    if (name) names.push(name);
  }
  return names;
}

function odsSheetNames(content: string): string[] {
  const names: string[] = [];
  for (const m of content.matchAll(/<table:table\s([^>]*)>/g)) names.push(attribute(m[1]!, 'table:name') ?? '');
  return names;
}

/**
 * The cells an .ods content would become: a row or a cell may stand for up to a million repeated ones
 * (number-rows-repeated, number-columns-repeated), so a few bytes can describe billions of cells. Counts up to
 * each row's last cell with anything in it, as the reader trims the rest; stops past `limit`.
 */
function odsCellCount(content: string, limit: number): number {
  const TAG = /<table:(table-row|table-cell|covered-table-cell)\b([^>]*?)(\/?)>|<\/table:table-row>/g;
  let total = 0;
  let rowRepeat = 1;
  let position = 0;
  let width = 0;
  for (const m of content.matchAll(TAG)) {
    const [, tag, attrs = '', selfClosing] = m;
    if (tag === undefined) {
      total += width * rowRepeat;
      if (total > limit) return total;
    } else if (tag === 'table-row') {
      rowRepeat = Number(attribute(attrs, 'table:number-rows-repeated') ?? 1) || 1;
      position = 0;
      width = 0;
    } else {
      position += Number(attribute(attrs, 'table:number-columns-repeated') ?? 1) || 1;
      if (selfClosing !== '/' || attrs.includes('value-type=')) width = position;
    }
  }
  return total;
}

/** An ISO date (or date and time) for a date cell: the text such a field would hold. */
function dateText(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

type Cell = string | number | boolean | Date | null;

const TEXT_TYPES = new Set(['string', 'enum']);

export function streamSheet(format: SheetFormat, buf: Uint8Array, options: SheetOptions): SheetStream {
  const found: SheetFound = { sheet: '', columns: new Map(), firstColumn: 0 };
  const place = (column: number, row: number): Place => ({
    line: row,
    column: column + 1,
    cell: cellName(found.sheet, column, row),
  });
  const locate: Locator = (record, path) => {
    if (record.line === undefined) return undefined;
    for (let k = path.length; k > 0; k--) {
      const c = found.columns.get(path.slice(0, k).join('.'));
      if (c !== undefined) return place(c, record.line);
    }
    return place(Math.max(0, found.firstColumn), record.line);
  };
  return { locate, records: sheetRecords(format, buf, options, found, place) };
}

/** What the read found that the locator needs: the sheet's name, each field's column, the row's first column. */
interface SheetFound {
  sheet: string;
  /** Column index of each field read, by its dotted name. */
  readonly columns: Map<string, number>;
  firstColumn: number;
}

/**
 * The records of the sheet: the workbook opened, the sheet picked, its price column scanned, the header row read,
 * then one record a row. `found` is filled as they are read, for the locator.
 */
async function* sheetRecords(
  format: SheetFormat,
  buf: Uint8Array,
  options: SheetOptions,
  found: SheetFound,
  place: (column: number, row: number) => Place,
): AsyncGenerator<RawRecord, ParseEnd, undefined> {
  const what = format === 'xlsx' ? 'an .xlsx file' : 'an .ods file';
  const problems: ParseProblem[] = [];
  const fail = (message: string, at?: Place, field?: string) => failed(problems, { message, at, field });
  const book = openWorkbook(format, buf, options.maxUnpackedBytes, what);
  if ('error' in book) return fail(book.error);
  const { names } = book;
  const index = sheetIndex(names, options.kind);
  const sheet = names?.[index] ?? 'Sheet1';
  found.sheet = sheet;

  const openRows = () =>
    format === 'xlsx' ? streamXlsxRows(buf, names ? { sheet } : {}) : streamOdsRows(buf, { sheets: [index] });
  // A price column of no stated unit is read on its own first, to know whether it mixes whole numbers and
  // fractions before any of its offers is given out; before the records' pass, as a reader left waiting while
  // another unpacks the same sheet would hold what it unpacked meanwhile.
  const prices =
    settingUnit(options.priceUnit, options.kind) === undefined
      ? await scanPrices(openRows(), sheet, options).catch(() => undefined) // the records' pass says why
      : undefined;
  const rows = openRows();
  let header: SheetHeader | undefined;
  const warnedBeyond = new Set<number>();
  const counted = { rows: 0, cells: 0 };
  try {
    for await (const row of rows) {
      const tooLong = sheetTooLong(row, counted, sheet);
      if (tooLong) return fail(tooLong);
      const values = row.values as readonly Cell[];
      const line = row.index + 1;
      if (!values.some((v) => v !== null && !(typeof v === 'string' && v.trim() === ''))) continue;
      if (!header) {
        const read = readHeader(values, line, { options, prices, place, problems, columns: found.columns });
        if ('fail' in read) return failed(problems, read.fail);
        header = read;
        found.firstColumn = found.columns.get('external_id') ?? header.cells.findIndex((h) => h);
        continue;
      }
      const record = rowRecord(values, line, header, options.kind, place, problems, warnedBeyond);
      if (record) yield record;
    }
  } catch (err) {
    return fail(`not a readable ${what.slice(what.indexOf(' ') + 1)}: ${(err as Error).message}; save it again`);
  }
  if (!header) {
    problems.push({
      severity: 'warning',
      message: `the sheet '${sheet}' is empty: it starts with a header row of field names`,
    });
    return { problems, unreadable: false, void: true };
  }
  return { problems, unreadable: header.refused.size > 0 };
}

/** The end of a read that failed: the warnings so far, then its error. */
function failed(problems: readonly ParseProblem[], failure: Failure): ParseEnd {
  const { message, at, field } = failure;
  return {
    problems: [
      ...problems.filter((p) => p.severity === 'warning'),
      { severity: 'error', message, ...(at ?? {}), ...(field ? { field } : {}) },
    ],
    unreadable: true,
    void: true,
  };
}

/** The sheet of the folder's kind ('Items', 'Top-ups'), else the first. */
function sheetIndex(names: readonly string[] | undefined, kind: OfferKind): number {
  const wanted = KIND_SHEETS[kind];
  const index = names?.findIndex((n) => wanted.includes(headerKey(n))) ?? -1;
  return Math.max(index, 0);
}

/** The path of a column's field in a record: 'login.password' is ['login', 'password']. */
type FieldPath = readonly [string] | readonly [string, string];

/** The header row, as read: what its columns name, and what the rows below need to know of it. */
interface SheetHeader {
  /** Its row number (1-based). */
  readonly row: number;
  /** Each cell's text, trimmed; undefined for an empty cell. */
  readonly cells: readonly (string | undefined)[];
  /** Columns naming a forbidden key: never read, and the file's offers are quarantined. */
  readonly refused: ReadonlySet<number>;
  /** The field of each column read; undefined for a column not read. */
  readonly paths: readonly (FieldPath | undefined)[];
  /** The unit of the price column: its header's, else catalogue.priceUnit's. */
  readonly priceUnit: PriceUnit | undefined;
  /** The price column mixes whole numbers and fractions and no unit is stated. */
  readonly ambiguousPrice: boolean;
}

/** What reading the header row needs; `problems` and `columns` are filled as it reads. */
interface HeaderContext {
  readonly options: SheetOptions;
  readonly prices: { readonly column: number; readonly scan: PriceColumnScan } | undefined;
  readonly place: (column: number, row: number) => Place;
  readonly problems: ParseProblem[];
  readonly columns: Map<string, number>;
}

/** An error that ends the read at once. */
interface Failure {
  readonly message: string;
  readonly at?: Place;
  readonly field?: string;
}

/**
 * The ZIP directory checked, and the parts that could unpack past what memory bears refused (an .ods file's cells,
 * an .xlsx file's shared strings); then the workbook's sheet names (undefined: the reader finds the first).
 */
function openWorkbook(
  format: SheetFormat,
  buf: Uint8Array,
  maxUnpackedBytes: number,
  what: string,
): { readonly names: string[] | undefined } | { readonly error: string } {
  const zip = checkZip(buf, maxUnpackedBytes, what);
  if ('error' in zip) return zip;
  if (format === 'ods') {
    const content = entryText(buf, zip.entries.get('content.xml'));
    if (content === undefined) return { error: `not ${what}: it holds no readable content.xml; save it again` };
    const cells = odsCellCount(content, MAX_CELLS);
    if (cells > MAX_CELLS) {
      return {
        error:
          `the workbook's sheets hold more than ${MAX_CELLS.toLocaleString('en')} cells (rows or cells repeated ` +
          'over the whole sheet): delete the unused rows and columns, or export the offers as CSV',
      };
    }
    return { names: odsSheetNames(content) };
  }
  const strings = zip.entries.get('xl/sharedStrings.xml');
  const tooMany = {
    error:
      `the workbook holds more than ${MAX_SHARED_STRINGS.toLocaleString('en')} different texts, or more than ` +
      `${MAX_SHARED_STRINGS_BYTES / 1024 / 1024} MiB of them: split its offers into several files, or export ` +
      'them as CSV',
  };
  if (strings && strings.uncompressedSize > MAX_SHARED_STRINGS_BYTES) return tooMany;
  const table = strings && unzipEntry(buf, strings);
  if (table && sharedStringCount(table) > MAX_SHARED_STRINGS) return tooMany;
  return { names: xlsxSheetNames(buf, zip.entries) };
}

/** The error of a sheet past Excel's rows or past the cells read in bounded memory; `read` counts them. */
function sheetTooLong(
  row: { readonly index: number; readonly values: readonly unknown[] },
  read: { rows: number; cells: number },
  sheet: string,
): string | undefined {
  if (++read.rows > MAX_ROWS || row.index >= MAX_ROWS)
    return `the sheet '${sheet}' has more than ${MAX_ROWS.toLocaleString('en')} rows, Excel's own limit`;
  read.cells += row.values.length;
  if (read.cells > MAX_CELLS) {
    return (
      `the sheet '${sheet}' holds more than ${MAX_CELLS.toLocaleString('en')} cells: delete the unused rows ` +
      'and columns, or export the offers as CSV'
    );
  }
  return undefined;
}

/**
 * The header row: each cell matched to a field, a forbidden key refused (an error at its cell), a header naming no
 * field said once (a warning), the seller's own column passed over; a field named twice ends the read.
 */
function readHeader(values: readonly Cell[], line: number, ctx: HeaderContext): SheetHeader | { fail: Failure } {
  const { options, place, problems, columns } = ctx;
  const cells = values.map((v) => (v === null ? undefined : (v instanceof Date ? dateText(v) : String(v)).trim()));
  const refused = new Set<number>();
  const paths: (FieldPath | undefined)[] = [];
  let priceUnit: PriceUnit | undefined = settingUnit(options.priceUnit, options.kind);
  const seen = new Map<string, number>();
  for (let c = 0; c < cells.length; c++) {
    const written = cells[c];
    if (!written) continue;
    const bad = written.split('.').find((s) => isForbiddenKey(s.trim()));
    if (bad !== undefined) {
      refused.add(c);
      problems.push({
        severity: 'error',
        message:
          `column '${written}': ${forbiddenKeyMessage(bad.trim())}; ` + 'until then nothing from this file is archived',
        ...place(c, line),
        field: written,
      });
      continue;
    }
    const match = matchHeader(written, options.kind, options);
    if ('ignored' in match) continue; // the seller's own column: not read, not said
    if ('unknown' in match) {
      problems.push({ severity: 'warning', message: match.message, ...place(c, line), field: written });
      continue;
    }
    if (match.priceUnit) priceUnit = match.priceUnit;
    const before = seen.get(match.name);
    if (before !== undefined) {
      const message = `columns '${cells[before]}' and '${written}' both name ${match.name}: give each field one column`;
      return { fail: { message, at: place(c, line), field: match.name } };
    }
    seen.set(match.name, c);
    columns.set(match.name, c);
    const dot = match.name.indexOf('.');
    paths[c] = dot > 0 ? [match.name.slice(0, dot), match.name.slice(dot + 1)] : [match.name];
  }
  const priceColumn = columns.get('price');
  const { prices } = ctx;
  let ambiguousPrice = false;
  if (priceColumn !== undefined && priceUnit === undefined && prices?.column === priceColumn && prices.scan.mixed) {
    ambiguousPrice = true;
    problems.push({
      severity: 'error',
      message: prices.scan.message(cells[priceColumn]!),
      ...place(priceColumn, line),
      field: 'price',
    });
  }
  return { row: line, cells, refused, paths, priceUnit, ambiguousPrice };
}

/**
 * A row below the header as a record; undefined when it holds nothing read. Cells under no header are said once a
 * column (a warning in `problems`, the column kept in `warnedBeyond`).
 */
function rowRecord(
  values: readonly Cell[],
  line: number,
  header: SheetHeader,
  kind: OfferKind,
  place: (column: number, row: number) => Place,
  problems: ParseProblem[],
  warnedBeyond: Set<number>,
): RawRecord | undefined {
  const obj: Record<string, unknown> = {};
  const fieldErrors: { path: PathInRecord; message: string }[] = [];
  let decimalComma = false;
  for (let c = 0; c < values.length; c++) {
    const v = values[c];
    if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '')) continue;
    const path = header.paths[c];
    if (!path) {
      if ((c >= header.cells.length || !header.cells[c]) && !warnedBeyond.has(c)) {
        warnedBeyond.add(c);
        problems.push({
          severity: 'warning',
          message:
            `column ${columnLetters(c)} has cells but no name in the header row (row ${header.row}): ` +
            'they are not read',
          ...place(c, line),
        });
      }
      continue; // an unknown or refused column (said once, at its header), or the seller's own
    }
    const spec = specOf(kind, path.join('.'));
    if (typeof v === 'string' && spec?.type === 'price' && !ERROR_VALUE.test(v.trim()) && hasDecimalComma(v))
      decimalComma = true;
    const cell = cellValue(v, path, spec, decimalComma, header.ambiguousPrice);
    if (cell.kind !== 'value') {
      const message = cell.kind === 'error' ? cell.message : ambiguousPriceMessage(header.cells[c]!);
      fieldErrors.push({ path, message });
      continue;
    }
    const { value } = cell;
    if (path.length === 1) setOwn(obj, cellField(path[0], value), value);
    else {
      const inner = getOwn(obj, path[0]);
      const nested: Record<string, unknown> = isPlainObject(inner) ? inner : {};
      setOwn(nested, path[1], value);
      setOwn(obj, path[0], nested);
    }
  }
  if (Object.keys(obj).length === 0 && fieldErrors.length === 0) return undefined;
  return {
    value: obj,
    line,
    fromText: true,
    keysChecked: true,
    ...(decimalComma ? { decimalMark: 'comma' as const } : {}),
    ...(header.priceUnit ? { priceUnit: header.priceUnit } : {}),
    ...(fieldErrors.length > 0 ? { fieldErrors } : {}),
  };
}

/** A cell as its field reads it: a value, the spreadsheet error it shows, or a whole number of an ambiguous price. */
type CellReading =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'ambiguous-price' };

function cellValue(
  v: Exclude<Cell, null>,
  path: FieldPath,
  spec: FieldSpec | undefined,
  decimalComma: boolean,
  ambiguousPrice: boolean,
): CellReading {
  if (typeof v === 'string') {
    if (ERROR_VALUE.test(v.trim()))
      return {
        kind: 'error',
        message: `the cell shows the spreadsheet error ${v.trim()}: correct its formula or type the value`,
      };
    if (spec?.type === 'price' && ambiguousPrice && isWholePrice(v, decimalComma ? 'comma' : 'point'))
      return { kind: 'ambiguous-price' };
    return { kind: 'value', value: CSV_LIST_FIELDS.has(path[path.length - 1]!) && v.includes('|') ? v.split('|') : v };
  }
  if (typeof v === 'number') {
    if (spec?.type === 'price' && ambiguousPrice && Number.isInteger(v)) return { kind: 'ambiguous-price' };
    // A number in a text column (an id, a server '1') is that text, not a value to quote.
    return { kind: 'value', value: path[0] === 'external_id' || (spec && TEXT_TYPES.has(spec.type)) ? String(v) : v };
  }
  return { kind: 'value', value: v instanceof Date ? dateText(v) : v };
}

/**
 * The price column's cells below the header row, read until settled: undefined when the header row names no price
 * column or states its unit. The header row is found as the records' pass finds it: the first row with anything.
 */
async function scanPrices(
  rows: AsyncIterable<{ readonly index: number; readonly values: readonly unknown[] }>,
  sheet: string,
  options: SheetOptions,
): Promise<{ readonly column: number; readonly scan: PriceColumnScan } | undefined> {
  const scan = new PriceColumnScan();
  let column = -1;
  let read = 0;
  for await (const row of rows) {
    // The records' own read says when the sheet is too long or not readable.
    if (++read > MAX_ROWS || scan.settled) break;
    const values = row.values;
    if (column < 0) {
      if (!values.some((v) => v !== null && v !== undefined && !(typeof v === 'string' && v.trim() === ''))) continue;
      column = values.findIndex((v) => {
        if (typeof v !== 'string' || v.trim() === '') return false;
        const match = matchHeader(v.trim(), options.kind, options);
        return 'name' in match && match.name === 'price';
      });
      if (column < 0) return undefined;
      const match = matchHeader(String(values[column]).trim(), options.kind, options);
      if ('name' in match && match.priceUnit) return undefined;
      continue;
    }
    const v = values[column];
    if (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && !ERROR_VALUE.test(v.trim())))
      scan.add(v, cellName(sheet, column, row.index + 1));
  }
  return column < 0 ? undefined : { column, scan };
}
