// Turns a file's text into raw records (plain objects, not yet checked) with where each came from.
// JSON: one offer, an array, or {kind?, offers: [...]}; NDJSON: one offer a line; CSV: a header row, dotted
// column names for nested fields, '|' between list items; YAML: one offer, a list, {kind?, offers}, or
// several documents.
import { LineCounter, parseAllDocuments, isMap, isSeq, type Document, type Node as YamlNode } from 'yaml';
import { CsvError, parseCsv } from './csv.ts';
import type { OfferKind } from './desired-offer.ts';
import { locateJsonError } from './json-error.ts';
import { parseKindName, type Format } from './layout.ts';
import { pointerToken } from './catalogue-problem.ts';
import { unknownFieldMessage } from './suggest.ts';

export interface RawRecord {
  readonly value: unknown;
  readonly line?: number;
  /** Pointer of the record itself ('' when the file is one offer). */
  readonly pointer?: string;
  /** Makes the record invalid although its identity may be known (a CSV row with too many cells). */
  readonly error?: string;
}

export interface ParseProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly line?: number;
  readonly pointer?: string;
  readonly field?: string;
}

export interface ParsedFile {
  readonly records: RawRecord[];
  /** Set by a `kind` key in a {kind, offers} file. */
  readonly kind?: OfferKind;
  readonly problems: ParseProblem[];
  /** Some part could not be read at all (the whole file, a line, a document): the offers it held are unknown. */
  readonly unreadable: boolean;
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

export function parseFile(format: Format, text: string): ParsedFile {
  switch (format) {
    case 'json':
      return parseJson(text);
    case 'ndjson':
      return parseNdjson(text);
    case 'csv':
      return parseCsvFile(text);
    case 'yaml':
      return parseYaml(text);
    default:
      return format satisfies never;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Splits a top-level value into records: array, {kind, offers}, or one offer. */
function recordsOf(
  value: unknown,
  out: { records: RawRecord[]; problems: ParseProblem[] },
  lineOf?: (path: (string | number)[]) => number | undefined,
): { kind?: OfferKind; unreadable: boolean } {
  const at = (path: (string | number)[]): { pointer: string; line?: number } => {
    const line = lineOf?.(path);
    return { pointer: path.map((p) => '/' + pointerToken(p)).join(''), ...(line !== undefined ? { line } : {}) };
  };
  if (value === null || value === undefined) return { unreadable: false };
  if (Array.isArray(value)) {
    value.forEach((v, i) => out.records.push({ value: v, ...at([i]) }));
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
    out.records.push({ value, ...at([]) });
    return { unreadable: false };
  }
  let kind: OfferKind | undefined;
  let unreadable = false;
  for (const key of Object.keys(value)) {
    if (!WRAPPER_KEYS.includes(key)) {
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
  if (Array.isArray(offers)) offers.forEach((v, i) => out.records.push({ value: v, ...at(['offers', i]) }));
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
    });
    return { ...out, unreadable: true };
  }
  const r = recordsOf(value, out);
  return { ...out, ...r };
}

function parseNdjson(text: string): ParsedFile {
  const out = { records: [] as RawRecord[], problems: [] as ParseProblem[] };
  let unreadable = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i]!;
    if (i === 0 && l.charCodeAt(0) === 0xfeff) l = l.slice(1);
    if (l.endsWith('\r')) l = l.slice(0, -1);
    if (l.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(l);
      if (!isPlainObject(value)) {
        out.problems.push({ severity: 'error', message: 'each line must be one offer (a JSON object)', line: i + 1 });
        unreadable = true;
      } else out.records.push({ value, line: i + 1 });
    } catch (err) {
      const at = locateJsonError(l, (err as Error).message);
      out.problems.push({
        severity: 'error',
        message: `not valid JSON: ${at.message} (column ${at.column}); each line must be one complete JSON object`,
        line: i + 1,
      });
      unreadable = true;
    }
  }
  return { ...out, unreadable };
}

function parseCsvFile(text: string): ParsedFile {
  const problems: ParseProblem[] = [];
  let rows;
  try {
    rows = parseCsv(text);
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    problems.push({ severity: 'error', message: `not valid CSV: ${err.message}`, line: err.line });
    return { records: [], problems, unreadable: true };
  }
  const header = rows[0];
  if (!header) {
    problems.push({
      severity: 'warning',
      message: 'the file is empty: a CSV file starts with a header row of field names',
      line: 1,
    });
    return { records: [], problems, unreadable: false };
  }
  const names = header.cells.map((c) => c.trim());
  const seen = new Set<string>();
  for (const name of names) {
    if (name !== '' && seen.has(name)) {
      problems.push({
        severity: 'error',
        message: `column '${name}' appears twice in the header: give each field one column`,
        line: header.line,
        field: name,
      });
      return { records: [], problems, unreadable: true };
    }
    seen.add(name);
  }
  const paths = names.map((n) => {
    const dot = n.indexOf('.');
    return dot > 0 ? ([n.slice(0, dot), n.slice(dot + 1)] as const) : ([n] as const);
  });
  const records: RawRecord[] = [];
  for (let r = 1; r < rows.length; r++) {
    const row = rows[r]!;
    const obj: Record<string, unknown> = {};
    const count = Math.min(row.cells.length, names.length);
    for (let c = 0; c < count; c++) {
      const cell = row.cells[c]!;
      if (cell.trim() === '') continue; // an empty cell is an absent field
      const path = paths[c]!;
      const name = path[0];
      if (name === '') {
        problems.push({
          severity: 'warning',
          message: `cell ${c + 1} has no column name in the header (ignored)`,
          line: row.line,
        });
        continue;
      }
      if (path.length === 1) {
        obj[name] = CSV_LIST_FIELDS.has(name) && cell.includes('|') ? cell.split('|') : cell;
      } else {
        const inner = obj[name];
        const nested: Record<string, unknown> = isPlainObject(inner) ? inner : {};
        nested[path[1]] = cell;
        obj[name] = nested;
      }
    }
    let error: string | undefined;
    if (row.cells.length > names.length) {
      error = `this row has ${row.cells.length} cells but the header has ${names.length} columns: put double quotes around a value that contains a comma`;
    } else if (row.cells.length < names.length) {
      problems.push({
        severity: 'warning',
        message: `this row has ${row.cells.length} cells but the header has ${names.length} columns: the missing ones are taken as empty`,
        line: row.line,
      });
    }
    records.push({ value: obj, line: row.line, ...(error ? { error } : {}) });
  }
  return { records, problems, unreadable: false };
}

function parseYaml(text: string): ParsedFile {
  const out = { records: [] as RawRecord[], problems: [] as ParseProblem[] };
  const lineCounter = new LineCounter();
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { lineCounter, prettyErrors: false }) as Document.Parsed[];
  } catch (err) {
    out.problems.push({ severity: 'error', message: `not valid YAML: ${(err as Error).message}`, line: 1 });
    return { ...out, unreadable: true };
  }
  if (!Array.isArray(docs)) docs = [docs];
  let unreadable = false;
  let kind: OfferKind | undefined;
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      const line = e.linePos?.[0]?.line ?? lineCounter.linePos(e.pos[0]).line;
      out.problems.push({ severity: 'error', message: `not valid YAML: ${e.message.split('\n')[0]}`, line });
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
    const lineOf = (path: (string | number)[]): number | undefined => {
      let node: unknown = doc.contents;
      for (const p of path) {
        if (isSeq(node) || isMap(node)) node = node.get(p, true);
        else return undefined;
      }
      const range = (node as YamlNode | undefined)?.range;
      return range ? lineCounter.linePos(range[0]).line : undefined;
    };
    const r = recordsOf(value, out, lineOf);
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
  return { ...out, ...(kind ? { kind } : {}), unreadable };
}
