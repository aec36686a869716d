// Turns a file's text into raw records (plain objects, not yet checked) with where each came from.
// JSON: one offer, an array, or {kind?, offers: [...]}; NDJSON: one offer a line; CSV: a header row, dotted
// column names for nested fields, '|' between list items; YAML: one offer, a list, {kind?, offers}, or
// several documents.
import { Composer, LineCounter, Parser, isMap, isSeq, type CST, type Document, type Node as YamlNode } from 'yaml';
import {
  CsvError,
  DELIMITER_CHAR,
  cellOffsets,
  readCsv,
  type CsvDelimiter,
  type CsvRow,
  type CsvTable,
} from './csv.ts';
import type { OfferKind } from './desired-offer.ts';
import { locateJsonError } from './json-error.ts';
import { jsonValueOffsets, nearestOffset } from './json-positions.ts';
import { parseKindName, type Format } from './layout.ts';
import { pointerToken } from './catalogue-problem.ts';
import {
  forbiddenKeyMessage,
  getOwn,
  isForbiddenKey,
  setOwn,
  textMayHoldForbiddenKey,
} from '../input/forbidden-keys.ts';
import { hasDecimalComma, type DecimalMark } from './price.ts';
import { unknownFieldMessage } from './suggest.ts';
import { LineIndex, type TextPosition } from './text-position.ts';
import { simpleYamlRecords } from './yaml-simple.ts';

export interface RawRecord {
  readonly value: unknown;
  readonly line?: number;
  /** Pointer of the record itself ('' when the file is one offer). */
  readonly pointer?: string;
  /** Makes the record invalid although its identity may be known (a CSV row with too many cells). */
  readonly error?: string;
  /** A CSV file whose prices are written with a decimal comma. */
  readonly decimalMark?: DecimalMark;
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
}

export type PathInRecord = readonly (string | number)[];

/**
 * Line and column of a value of a record (its field path inside the record), or of the nearest thing that
 * exists when the value does not (a missing field: the record). Costs nothing until first asked.
 */
export type Locator = (record: RawRecord, path: PathInRecord) => TextPosition | undefined;

export interface ParseProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
  readonly pointer?: string;
  readonly field?: string;
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
  readonly csvDelimiter?: CsvDelimiter | 'auto';
  readonly decimalMark?: DecimalMark | 'auto';
}

export interface ParsedFile {
  readonly records: RawRecord[];
  /** Set by a `kind` key in a {kind, offers} file. */
  readonly kind?: OfferKind;
  readonly problems: ParseProblem[];
  /** Some part could not be read at all (the whole file, a line, a document): the offers it held are unknown. */
  readonly unreadable: boolean;
  readonly locate?: Locator;
  readonly csv?: CsvDialect;
}

/** Fields that a CSV cell may hold as a list, items separated by '|'. */
export const CSV_LIST_FIELDS: ReadonlySet<string> = new Set([
  'champions',
  'skins',
  'roles',
  'image_ids',
  'images',
  'image_urls',
]);

const WRAPPER_KEYS = ['kind', 'offers', '$schema'];

/** UTF-8 text of a file, or why it is not text. */
export function decodeText(buf: Uint8Array): { text: string } | { error: string } {
  const probe = buf.subarray(0, 8192);
  if (probe.includes(0)) return { error: 'this is a binary file, not text: a catalogue file must be UTF-8 text' };
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
    return { text };
  } catch {
    return { error: 'not valid UTF-8 text: save the file as UTF-8' };
  }
}

/** What is known of a file once all its records are read. */
export interface ParseEnd {
  readonly problems: ParseProblem[];
  readonly unreadable: boolean;
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

export function streamFile(format: Format, text: string, options: ParseOptions = {}): RecordStream {
  const stream = streamFormat(format, text, options);
  return textMayHoldForbiddenKey(text) ? stream : { ...stream, records: keysChecked(stream.records) };
}

function* keysChecked(records: Generator<RawRecord, ParseEnd, undefined>): Generator<RawRecord, ParseEnd, undefined> {
  for (let step = records.next(); ; step = records.next()) {
    if (step.done) return step.value;
    yield { ...step.value, keysChecked: true };
  }
}

function streamFormat(format: Format, text: string, options: ParseOptions): RecordStream {
  switch (format) {
    case 'json':
      return whole(parseJson(text));
    case 'ndjson':
      return streamNdjson(text);
    case 'csv':
      return streamCsv(text, options);
    case 'yaml':
      return whole(parseYaml(text));
    default:
      return format satisfies never;
  }
}

/** A whole file's records. */
export function parseFile(format: Format, text: string, options: ParseOptions = {}): ParsedFile {
  const stream = streamFile(format, text, options);
  const records: RawRecord[] = [];
  let step = stream.records.next();
  for (; !step.done; step = stream.records.next()) records.push(step.value);
  const end = step.value;
  if (end.void) return { records: [], problems: end.problems, unreadable: end.unreadable };
  return {
    records,
    ...(stream.kind ? { kind: stream.kind } : {}),
    problems: end.problems,
    unreadable: end.unreadable,
    ...(stream.locate ? { locate: stream.locate } : {}),
    ...(end.csv ? { csv: end.csv } : {}),
  };
}

function whole(parsed: ParsedFile): RecordStream {
  function* records(): Generator<RawRecord, ParseEnd, undefined> {
    yield* parsed.records;
    return { problems: parsed.problems, unreadable: parsed.unreadable, ...(parsed.csv ? { csv: parsed.csv } : {}) };
  }
  return {
    ...(parsed.kind ? { kind: parsed.kind } : {}),
    ...(parsed.locate ? { locate: parsed.locate } : {}),
    records: records(),
  };
}

function pointerOf(base: string, path: PathInRecord): string {
  let p = base;
  for (const k of path) p += `/${pointerToken(k)}`;
  return p;
}

/** Locates values of a JSON text by pointer; the offsets are mapped on the first question. */
function jsonLocator(text: string, lineOffset = 0): (pointer: string) => TextPosition | undefined {
  let offsets: Map<string, number> | undefined;
  let lines: LineIndex | undefined;
  return (pointer) => {
    offsets ??= jsonValueOffsets(text);
    lines ??= new LineIndex(text);
    const at = nearestOffset(offsets, pointer);
    if (at === undefined) return undefined;
    const p = lines.position(at);
    return { line: p.line + lineOffset, column: p.column };
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Splits a top-level value into records: array, {kind, offers}, or one offer. */
function recordsOf(
  value: unknown,
  out: { records: RawRecord[]; problems: ParseProblem[] },
  positionOf?: (path: PathInRecord) => TextPosition | undefined,
  doc?: number,
): { kind?: OfferKind; unreadable: boolean } {
  const at = (path: PathInRecord): { pointer: string; line?: number; column?: number } => {
    const p = positionOf?.(path);
    return { pointer: pointerOf('', path), ...(p ? { line: p.line, column: p.column } : {}) };
  };
  const record = (value: unknown, path: PathInRecord): RawRecord => {
    const p = positionOf?.(path);
    return {
      value,
      pointer: pointerOf('', path),
      ...(p ? { line: p.line } : {}),
      // YAML (a document index): yaml's scalars are slices of the text.
      ...(doc !== undefined ? { doc, fromText: true as const } : {}),
    };
  };
  if (value === null || value === undefined) return { unreadable: false };
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) out.records.push(record(v, [i]));
    return { unreadable: false };
  }
  if (!isPlainObject(value)) {
    out.problems.push({
      severity: 'error',
      message: 'expected an offer (an object), a list of offers, or {offers: [...]}',
      pointer: '',
    });
    return { unreadable: true };
  }
  if (!('offers' in value)) {
    out.records.push(record(value, []));
    return { unreadable: false };
  }
  let kind: OfferKind | undefined;
  let unreadable = false;
  for (const key of Object.keys(value)) {
    if (isForbiddenKey(key)) {
      out.problems.push({ severity: 'error', message: forbiddenKeyMessage(key, 'key'), ...at([key]), field: key });
      unreadable = true;
    } else if (!WRAPPER_KEYS.includes(key)) {
      out.problems.push({
        severity: 'warning',
        message: `${unknownFieldMessage(key, WRAPPER_KEYS, 'key')}: a file of the form {kind, offers} holds only those`,
        ...at([key]),
        field: key,
      });
    }
  }
  if (value.kind !== undefined) {
    kind = parseKindName(value.kind);
    if (!kind) {
      out.problems.push({
        severity: 'error',
        message: `kind must be one of account, item, topup, got ${JSON.stringify(value.kind)}`,
        ...at(['kind']),
        field: 'kind',
      });
      unreadable = true;
    }
  }
  const offers = value.offers;
  if (Array.isArray(offers)) for (const [i, v] of offers.entries()) out.records.push(record(v, ['offers', i]));
  else if (offers !== null) {
    out.problems.push({
      severity: 'error',
      message: 'offers must be a list of offers',
      ...at(['offers']),
      field: 'offers',
    });
    unreadable = true;
  }
  return { ...(kind ? { kind } : {}), unreadable };
}

function parseJson(text: string): ParsedFile {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const out = { records: [] as RawRecord[], problems: [] as ParseProblem[] };
  if (body.trim() === '') {
    out.problems.push({ severity: 'warning', message: 'the file is empty: it holds no offers', line: 1 });
    return { ...out, unreadable: false };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    const at = locateJsonError(body, (err as Error).message);
    out.problems.push({
      severity: 'error',
      message: `not valid JSON: ${at.message} (line ${at.line}, column ${at.column})`,
      line: at.line,
      column: at.column,
    });
    return { ...out, unreadable: true };
  }
  const find = jsonLocator(body);
  const r = recordsOf(value, out);
  for (let k = 0; k < out.problems.length; k++) {
    const p = out.problems[k]!;
    const at = p.pointer !== undefined ? find(p.pointer) : undefined;
    if (at) out.problems[k] = { ...p, line: at.line, column: at.column };
  }
  const locate: Locator = (record, path) => find(pointerOf(record.pointer ?? '', path));
  return { ...out, ...r, locate };
}

function streamNdjson(text: string): RecordStream {
  function* records(): Generator<RawRecord, ParseEnd, undefined> {
    const problems: ParseProblem[] = [];
    let unreadable = false;
    for (let start = 0, i = 0; start <= text.length; i++) {
      const nl = text.indexOf('\n', start);
      const stop = nl < 0 ? text.length : nl;
      let l = text.slice(start, stop);
      start = stop + 1;
      if (i === 0 && l.charCodeAt(0) === 0xfeff) l = l.slice(1);
      if (l.endsWith('\r')) l = l.slice(0, -1);
      if (l.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(l);
        if (!isPlainObject(value)) {
          problems.push({ severity: 'error', message: 'each line must be one offer (a JSON object)', line: i + 1 });
          unreadable = true;
        } else yield { value, line: i + 1 };
      } catch (err) {
        const at = locateJsonError(l, (err as Error).message);
        problems.push({
          severity: 'error',
          message: `not valid JSON: ${at.message} (column ${at.column}); each line must be one complete JSON object`,
          line: i + 1,
          column: at.column,
        });
        unreadable = true;
      }
    }
    return { problems, unreadable };
  }
  // Where each line starts, found on the first question; one line's map at a time: problems come record by record.
  let starts: number[] | undefined;
  let cached: { line: number; find: (pointer: string) => TextPosition | undefined } | undefined;
  const locate: Locator = (record, path) => {
    const line = record.line;
    if (line === undefined) return undefined;
    if (cached?.line !== line) {
      starts ??= lineStarts(text);
      const from = starts[line - 1];
      if (from === undefined) return undefined;
      const to = starts[line] ?? text.length + 1;
      const lineText = text
        .slice(from, to - 1)
        .replace(/^\uFEFF/, '')
        .replace(/\r$/, '');
      cached = { line, find: jsonLocator(lineText, line - 1) };
    }
    return cached.find(pointerOf('', path));
  };
  return { locate, records: records() };
}

/** Offsets at which the lines of an NDJSON text start (lines end at LF, as the reader splits them). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) starts.push(nl + 1);
  return starts;
}

const DELIMITER_NAME: Readonly<Record<CsvDelimiter, string>> = { comma: 'comma', semicolon: 'semicolon', tab: 'tab' };

function streamCsv(text: string, options: ParseOptions): RecordStream {
  const problems: ParseProblem[] = [];
  const lines = new LineIndex(text);
  // A BOM is not a column an editor counts.
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const position = (offset: number): TextPosition => {
    const p = lines.position(offset);
    return p.line === 1 && bom ? { line: 1, column: Math.max(1, p.column - bom) } : p;
  };
  const setting = options.csvDelimiter === 'auto' ? undefined : options.csvDelimiter;
  const notCsv = (err: unknown): ParseEnd => {
    if (!(err instanceof CsvError)) throw err;
    const at = position(err.offset);
    return {
      problems: [{ severity: 'error', message: `not valid CSV: ${err.message}`, line: at.line, column: at.column }],
      unreadable: true,
      void: true,
    };
  };
  const ended = (end: ParseEnd): RecordStream => ({
    // A stream with no record: it ends at once with `end`.
    records: (function* (): Generator<RawRecord, ParseEnd, undefined> {
      yield* [];
      return end;
    })(),
  });
  /** Whether the rest of the file is CSV: a file that is not is "not valid CSV" whatever else is wrong with it. */
  const restIsCsv = (rows: Iterator<CsvRow>): ParseEnd | undefined => {
    try {
      while (!rows.next().done);
      return undefined;
    } catch (err) {
      return notCsv(err);
    }
  };
  const reader = readCsv(text, setting);
  const { delimiter } = reader;
  let header: CsvRow | undefined;
  try {
    const first = reader.rows.next();
    header = first.done ? undefined : first.value;
  } catch (err) {
    return ended(notCsv(err));
  }
  if (!header) {
    problems.push({
      severity: 'warning',
      message: 'the file is empty: a CSV file starts with a header row of field names',
      line: 1,
    });
    return ended({ problems, unreadable: false, void: true });
  }
  const names = header.cells.map((c) => c.trim());
  // The cells of the row last asked about: its problems come one after the other, and a row of many unknown
  // columns has one per column, so walking the row again for each would be quadratic in its length.
  let asked: { offset: number; cells: number[] } | undefined;
  const cellAt = (row: { offset: number }, index: number): TextPosition => {
    if (asked?.offset !== row.offset) asked = { offset: row.offset, cells: cellOffsets(text, row.offset, delimiter) };
    return position(asked.cells[index] ?? row.offset);
  };
  const seen = new Set<string>();
  for (let c = 0; c < names.length; c++) {
    const name = names[c]!;
    if (name !== '' && seen.has(name)) {
      const broken = restIsCsv(reader.rows);
      if (broken) return ended(broken);
      problems.push({
        severity: 'error',
        message: `column '${name}' appears twice in the header: give each field one column`,
        ...cellAt(header, c),
        field: name,
      });
      return ended({ problems, unreadable: true, void: true });
    }
    seen.add(name);
  }
  // A column naming a forbidden key is refused and never read: '__proto__.status' would set every object's status.
  // The file's other columns and rows are still read; its offers are quarantined, as what it meant is unknown.
  const refused = new Set<number>();
  for (let c = 0; c < names.length; c++) {
    const bad = names[c]!.split('.').find(isForbiddenKey);
    if (bad === undefined) continue;
    refused.add(c);
    problems.push({
      severity: 'error',
      message: `column '${names[c]}': ${forbiddenKeyMessage(bad)}; until then nothing from this file is archived`,
      ...cellAt(header, c),
      field: names[c]!,
    });
  }
  const paths = names.map((n) => {
    const dot = n.indexOf('.');
    return dot > 0 ? ([n.slice(0, dot), n.slice(dot + 1)] as const) : ([n] as const);
  });
  const decimal = decimalMarkOf(() => readCsv(text, setting).rows, names, delimiter, options.decimalMark);
  const dialect: CsvDialect = { delimiter, delimiterFrom: reader.delimiterFrom, ...decimal };
  function* records(): Generator<RawRecord, ParseEnd, undefined> {
    try {
      for (const row of reader.rows) {
        const obj: Record<string, unknown> = {};
        const count = Math.min(row.cells.length, names.length);
        for (let c = 0; c < count; c++) {
          const cell = row.cells[c]!;
          if (cell.trim() === '' || refused.has(c)) continue; // an empty cell is an absent field
          const path = paths[c]!;
          const name = path[0];
          if (name === '') {
            problems.push({
              severity: 'warning',
              message: `cell ${c + 1} has no column name in the header (ignored)`,
              ...cellAt(row, c),
            });
            continue;
          }
          if (path.length === 1) {
            setOwn(obj, name, CSV_LIST_FIELDS.has(name) && cell.includes('|') ? cell.split('|') : cell);
          } else {
            const inner = getOwn(obj, name);
            const nested: Record<string, unknown> = isPlainObject(inner) ? inner : {};
            setOwn(nested, path[1], cell);
            setOwn(obj, name, nested);
          }
        }
        let error: string | undefined;
        if (row.cells.length > names.length) {
          const d = DELIMITER_NAME[delimiter];
          error =
            `this row has ${row.cells.length} cells but the header has ${names.length} columns (${d}-separated): ` +
            `put double quotes around a value that contains a ${d}`;
        } else if (row.cells.length < names.length) {
          problems.push({
            severity: 'warning',
            message:
              `this row has ${row.cells.length} cells but the header has ${names.length} columns: the missing ` +
              `ones are taken as empty`,
            line: row.line,
            column: 1,
          });
        }
        yield {
          value: obj,
          line: row.line,
          offset: row.offset,
          ...(error ? { error } : {}),
          ...(decimal.decimalMark === 'comma' ? { decimalMark: 'comma' as const } : {}),
          fromText: true,
        };
      }
    } catch (err) {
      return notCsv(err);
    }
    return { problems, unreadable: refused.size > 0, csv: dialect };
  }
  const columns = new Map(names.map((n, c) => [n, c]));
  const locate: Locator = (record, path) => {
    if (record.offset === undefined) return undefined;
    // The column of the field, or of the field it is part of (images.0 is in the images column).
    for (let k = path.length; k > 0; k--) {
      const c = columns.get(path.slice(0, k).join('.'));
      if (c !== undefined) return cellAt({ offset: record.offset }, c);
    }
    return position(record.offset);
  };
  return { locate, records: records() };
}

/**
 * The decimal mark of a CSV file's prices: the setting when there is one; never a comma in a comma-separated
 * file (it could only be guessed); else a comma when some price is written with one ('24,99', '1.299,00').
 * The rows are read for it on their own, before the records, and let go.
 */
function decimalMarkOf(
  rows: () => Iterator<CsvRow>,
  names: readonly string[],
  delimiter: CsvDelimiter,
  setting: ParseOptions['decimalMark'],
): Pick<CsvDialect, 'decimalMark' | 'decimalFrom'> {
  if (setting && setting !== 'auto') return { decimalMark: setting, decimalFrom: 'setting' };
  if (DELIMITER_CHAR[delimiter] === ',') return { decimalMark: 'point', decimalFrom: 'comma-separated' };
  const priceColumns: number[] = [];
  names.forEach((n, c) => {
    if (n === 'price' || n.endsWith('.price')) priceColumns.push(c);
  });
  if (priceColumns.length > 0) {
    const it = rows();
    try {
      it.next(); // the header
      for (let r = it.next(); !r.done; r = it.next()) {
        for (const c of priceColumns) {
          const cell = r.value.cells[c];
          if (cell !== undefined && hasDecimalComma(cell)) return { decimalMark: 'comma', decimalFrom: 'prices' };
        }
      }
    } catch (err) {
      // Not CSV further down: the records' read says so.
      if (!(err instanceof CsvError)) throw err;
    }
  }
  return { decimalMark: 'point', decimalFrom: 'prices' };
}

function parseYaml(text: string): ParsedFile {
  const records = simpleYamlRecords(text);
  if (!records) return parseYamlFully(text);
  // Places are only asked for problems: then yaml reads the file again, for the same answers as above.
  let full: ParsedFile | undefined;
  const locate: Locator = (record, path) => {
    full ??= parseYamlFully(text);
    return full.locate?.(record, path);
  };
  return { records, problems: [], unreadable: false, locate };
}

/** A YAML file read by yaml's parser, whatever its shape: what simple files skip (yaml-simple.ts). */
export function parseYamlFully(text: string): ParsedFile {
  const out = { records: [] as RawRecord[], problems: [] as ParseProblem[] };
  const lineCounter = new LineCounter();
  let docs: Document.Parsed[];
  try {
    // yaml's parser keeps its own stack, its composer recurses: check the depth between the two.
    const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
    const deep = tooDeep(tokens, MAX_YAML_NESTING);
    if (deep !== undefined) {
      const at = lineCounter.linePos(deep);
      out.problems.push({
        severity: 'error',
        message: `not valid YAML for a catalogue: lists or maps nested more than ${MAX_YAML_NESTING} levels deep`,
        line: at.line,
        column: at.col,
      });
      return { ...out, unreadable: true };
    }
    docs = [...new Composer({ prettyErrors: false }).compose(tokens)] as Document.Parsed[];
  } catch (err) {
    out.problems.push({ severity: 'error', message: `not valid YAML: ${(err as Error).message}`, line: 1 });
    return { ...out, unreadable: true };
  }
  let unreadable = false;
  let kind: OfferKind | undefined;
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d]!;
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      const at = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
      out.problems.push({
        severity: 'error',
        message: `not valid YAML: ${e.message.split('\n')[0]}`,
        line: at.line,
        column: at.col,
      });
      unreadable = true;
      continue;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      out.problems.push({
        severity: 'error',
        message: `not valid YAML: ${(err as Error).message}`,
        line: lineCounter.linePos(doc.range[0]).line,
      });
      unreadable = true;
      continue;
    }
    const positionOf = (path: PathInRecord): TextPosition | undefined => yamlPosition(doc, lineCounter, path);
    const r = recordsOf(value, out, positionOf, d);
    if (r.unreadable) unreadable = true;
    if (r.kind) {
      if (kind && kind !== r.kind) {
        out.problems.push({
          severity: 'error',
          message: `the documents of this file give different kinds (${kind}, ${r.kind}): one file holds one kind`,
          line: lineCounter.linePos(doc.range[0]).line,
          field: 'kind',
        });
        unreadable = true;
      }
      kind = r.kind;
    }
  }
  if (docs.length === 0 || (out.records.length === 0 && out.problems.length === 0 && text.trim() === '')) {
    out.problems.push({ severity: 'warning', message: 'the file is empty: it holds no offers', line: 1 });
  }
  const locate: Locator = (record, path) => {
    const doc = docs[record.doc ?? 0];
    if (!doc || record.pointer === undefined) return undefined;
    return yamlPosition(doc, lineCounter, [...pointerPath(record.pointer), ...path]);
  };
  return { ...out, ...(kind ? { kind } : {}), unreadable, locate };
}

function pointerPath(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Position of the YAML node at `path`, else of its nearest enclosing node (a missing field: the record). */
function yamlPosition(doc: Document.Parsed, lc: LineCounter, path: PathInRecord): TextPosition | undefined {
  let node: unknown = doc.contents;
  for (const p of path) {
    const next: unknown = isSeq(node) ? node.get(Number(p), true) : isMap(node) ? node.get(p, true) : undefined;
    if (next === undefined || next === null) break;
    node = next;
  }
  const range = (node as YamlNode | null | undefined)?.range;
  if (!range) return undefined;
  const at = lc.linePos(range[0]);
  return { line: at.line, column: at.col };
}

/**
 * A catalogue needs a few levels. Hundreds of nested lists or maps overflow the stack in yaml's composer,
 * and near that point V8 can abort the whole process while compiling a regular expression (fuzzing found
 * it with 100,000 '[': "RegExpCompiler Allocation failed"), so such a file is refused before composing.
 */
const MAX_YAML_NESTING = 64;

/** Offset of the first collection nested deeper than the limit, walking the CST with a stack of its own. */
function tooDeep(tokens: readonly CST.Token[], limit: number): number | undefined {
  const stack: { token: CST.Token | undefined; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (!token) continue;
    if (token.type === 'document') stack.push({ token: token.value, depth });
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth >= limit) return token.offset;
      for (const item of token.items) {
        if ('key' in item) stack.push({ token: item.key ?? undefined, depth: depth + 1 });
        stack.push({ token: item.value, depth: depth + 1 });
      }
    }
  }
  return undefined;
}
