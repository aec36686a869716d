// What every catalogue format's reader gives: raw records (plain objects, not yet checked) with where each came
// from, the file's own problems, and a Locator that finds a value's place again only when a problem asks.
import type { CsvDelimiter, CsvTable } from '../csv-rows.ts';
import type { OfferKind } from '../desired-offer.ts';
import { pointerToken } from '../catalogue-problem.ts';
import type { DecimalMark, PriceUnit, PriceUnitSetting } from '../price.ts';
import type { TextPosition } from '../text-position.ts';

export interface RawRecord {
  readonly value: unknown;
  readonly line?: number;
  /** Pointer of the record itself ('' when the file is one offer). */
  readonly pointer?: string;
  /** Makes the record invalid although its identity may be known (a CSV row with too many cells). */
  readonly error?: string;
  /** Prices written with a decimal comma: a CSV file's, or a workbook row's text price cell. */
  readonly decimalMark?: DecimalMark;
  /** The unit its sheet's price column states (header or catalogue.priceUnit); absent: the API's rule. */
  readonly priceUnit?: PriceUnit;
  /** CSV: offset of the row in the text. */
  readonly offset?: number;
  /** YAML: index of the document holding the record. */
  readonly doc?: number;
  /** The file's text cannot hold a key that names a prototype: the normaliser need not look for one. */
  readonly keysChecked?: true;
  /**
   * Its strings may be slices of the file's text (CSV cells, YAML scalars), which would keep the whole text
   * alive: the normaliser copies those it keeps.
   */
  readonly fromText?: true;
  /** Values the file itself shows as errors (a spreadsheet cell showing #DIV/0!): the record is invalid. */
  readonly fieldErrors?: readonly { readonly path: PathInRecord; readonly message: string }[];
}

export type PathInRecord = readonly (string | number)[];

/**
 * Line and column of a value of a record (its field path inside the record), or of the nearest thing that
 * exists when the value does not (a missing field: the record). Costs nothing until first asked.
 */
export type Locator = (record: RawRecord, path: PathInRecord) => Place | undefined;

/**
 * Where a value is: line and column of a text file, or of a spreadsheet the row and column numbers with the cell
 * as a spreadsheet names it ('Sheet1!C3'), which is what a person is shown.
 */
export interface Place extends TextPosition {
  readonly cell?: string;
}

export interface ParseProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
  /** Spreadsheets: the cell ('Sheet1!C3'); line and column are then its row and column numbers. */
  readonly cell?: string;
  readonly pointer?: string;
  readonly field?: string;
  readonly externalId?: string;
}

/** How a CSV file was read, for `validate` to say. */
export interface CsvDialect {
  readonly delimiter: CsvDelimiter;
  readonly delimiterFrom: CsvTable['delimiterFrom'];
  readonly decimalMark: DecimalMark;
  readonly decimalFrom: 'prices' | 'setting' | 'comma-separated';
}

/** Settings of the catalogue.csv config keys; 'auto' (or absent) detects per file. */
export interface ParseOptions {
  /** The kind of the folder: header cells are matched to its fields as sellers write them (headers.ts). */
  readonly kind?: OfferKind;
  readonly csvDelimiter?: CsvDelimiter | 'auto';
  readonly decimalMark?: DecimalMark | 'auto';
  /** catalogue.priceUnit: the unit of CSV and spreadsheet price columns whose header states none. */
  readonly priceUnit?: PriceUnitSetting;
  /** catalogue.ignoreColumns: the seller's own columns, passed over without a word. */
  readonly ignoreColumns?: readonly string[];
}

export interface ParsedFile {
  readonly records: RawRecord[];
  /** Set by a `kind` key in a {kind, offers} file. */
  readonly kind?: OfferKind;
  readonly problems: ParseProblem[];
  /** Some part could not be read at all (the whole file, a line, a document): the offers it held are unknown. */
  readonly unreadable: boolean;
  /** The file says in so many words that it holds no offer (`[]`, `offers: []`), unlike an empty file. */
  readonly explicitlyEmpty?: true;
  readonly locate?: Locator;
  readonly csv?: CsvDialect;
}

/** What is known of a file once all its records are read. */
export interface ParseEnd {
  readonly problems: ParseProblem[];
  readonly unreadable: boolean;
  /** As ParsedFile's: an explicit empty list, the only way a file that still exists removes its offers. */
  readonly explicitlyEmpty?: true;
  readonly csv?: CsvDialect;
  /** The file turned out not to be readable at all (CSV broken further down): the records it gave are void. */
  readonly void?: true;
}

/**
 * A file's records one at a time. NDJSON and CSV files are read a line (a row) at a time, so that the loader
 * normalises each record before the next is read and never holds a large file's raw records all at once.
 */
export interface RecordStream {
  readonly kind?: OfferKind;
  readonly locate?: Locator;
  readonly records: Generator<RawRecord, ParseEnd, undefined>;
}

/** A spreadsheet's records: read as its rows are unpacked, which is asynchronous. */
export interface SheetStream {
  readonly kind?: OfferKind;
  readonly locate?: Locator;
  readonly records: AsyncGenerator<RawRecord, ParseEnd, undefined>;
}

/** A file read whole as one stream. */
export function wholeStream(parsed: ParsedFile): RecordStream {
  function* records(): Generator<RawRecord, ParseEnd, undefined> {
    yield* parsed.records;
    return {
      problems: parsed.problems,
      unreadable: parsed.unreadable,
      ...(parsed.explicitlyEmpty ? { explicitlyEmpty: true as const } : {}),
      ...(parsed.csv ? { csv: parsed.csv } : {}),
    };
  }
  return {
    ...(parsed.kind ? { kind: parsed.kind } : {}),
    ...(parsed.locate ? { locate: parsed.locate } : {}),
    records: records(),
  };
}

export function pointerOf(base: string, path: PathInRecord): string {
  let p = base;
  for (const k of path) p += `/${pointerToken(k)}`;
  return p;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
