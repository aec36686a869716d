// CSV catalogue files: a header row, dotted column names for nested fields, '|' between list items; read a row
// at a time (the rows themselves: ../csv-rows.ts). streamCsv reads the header's columns, refuses a file naming a
// field twice, settles the decimal mark and the price unit, then gives out one record a row.
import { forbiddenKeyMessage, getOwn, isForbiddenKey, setOwn } from '../../input/forbidden-keys.ts';
import { CsvError, DELIMITER_CHAR, readCsv, type CsvDelimiter, type CsvRow } from '../csv-rows.ts';
import { cellField, matchHeader } from '../headers.ts';
import { type DecimalMark, hasDecimalComma, isWholePrice, type PriceUnit, settingUnit } from '../price.ts';
import { ambiguousPriceMessage, PriceColumnScan } from '../price-column.ts';
import { CsvPlaces } from './csv-places.ts';
import {
  isPlainObject,
  type CsvDialect,
  type Locator,
  type ParseEnd,
  type ParseOptions,
  type ParseProblem,
  type RawRecord,
  type RecordStream,
} from './parsed-file.ts';

/** Fields that a CSV cell may hold as a list, items separated by '|'. */
export const CSV_LIST_FIELDS: ReadonlySet<string> = new Set([
  'champions',
  'skins',
  'roles',
  'image_ids',
  'images',
  'image_urls',
]);

const DELIMITER_NAME: Readonly<Record<CsvDelimiter, string>> = { comma: 'comma', semicolon: 'semicolon', tab: 'tab' };

export function streamCsv(text: string, options: ParseOptions): RecordStream {
  const problems: ParseProblem[] = [];
  const setting = options.csvDelimiter === 'auto' ? undefined : options.csvDelimiter;
  const reader = readCsv(text, setting);
  const { delimiter } = reader;
  const places = new CsvPlaces(text, delimiter);
  let header: CsvRow | undefined;
  try {
    const first = reader.rows.next();
    header = first.done ? undefined : first.value;
  } catch (err) {
    return ended(notCsv(err, places));
  }
  // No header row: the loader says what an empty file means (load-file.ts).
  if (!header) return ended({ problems, unreadable: false, void: true });
  const columns = readColumns(header, options, places, problems);
  const twice = columnNamedTwice(columns, header, places);
  if (twice) {
    const broken = restIsCsv(reader.rows, places);
    if (broken) return ended(broken);
    problems.push(twice);
    return ended({ problems, unreadable: true, void: true });
  }
  const { names, refused } = columns;
  const unreadable = [...refused].some((c) => names[c]!.split('.').some((s) => isForbiddenKey(s.trim())));
  const decimal = decimalMarkOf(() => readCsv(text, setting).rows, names, delimiter, options.decimalMark);
  const price = priceLayout(columns, options, () => readCsv(text, setting).rows, decimal.decimalMark);
  if (price.ambiguous) {
    problems.push({
      severity: 'error',
      message: price.ambiguous.message(columns.written[price.column]!),
      ...places.cell(header, price.column),
      field: 'price',
    });
  }
  const layout: RowLayout = {
    names,
    refused,
    written: columns.written,
    paths: names.map(fieldPath),
    delimiter,
    decimalMark: decimal.decimalMark,
    price,
  };
  const dialect: CsvDialect = { delimiter, delimiterFrom: reader.delimiterFrom, ...decimal };
  function* records(): Generator<RawRecord, ParseEnd, undefined> {
    try {
      for (const row of reader.rows) yield rowRecord(row, layout, places, problems);
    } catch (err) {
      return notCsv(err, places);
    }
    return { problems, unreadable, csv: dialect };
  }
  return { locate: locator(columns, places), records: records() };
}

/** The header's columns: the field each names, as written, and those not read. */
interface CsvColumns {
  /** The field of each column ('External ID' names external_id); a refused column keeps its text. */
  readonly names: readonly string[];
  /** Each column's header cell as written, trimmed. */
  readonly written: readonly string[];
  /** Columns never read: a forbidden key, the seller's own, or naming no field. */
  readonly refused: ReadonlySet<number>;
  /** The price unit a header states ('Price (cents)'). */
  readonly headerUnit: PriceUnit | undefined;
}

/** The path of a column's field in a record: 'login.password' is ['login', 'password']. */
type FieldPath = readonly [string] | readonly [string, string];

/** The price column, its unit, and the scan that found it ambiguous (whole numbers and fractions, no unit). */
interface PriceLayout {
  readonly column: number;
  readonly unit: PriceUnit | undefined;
  readonly ambiguous: PriceColumnScan | undefined;
}

/** What reading a row into a record needs of the header and the file. */
interface RowLayout {
  readonly names: readonly string[];
  readonly written: readonly string[];
  readonly refused: ReadonlySet<number>;
  readonly paths: readonly FieldPath[];
  readonly delimiter: CsvDelimiter;
  readonly decimalMark: DecimalMark;
  readonly price: PriceLayout;
}

/** A stream with no record: it ends at once with `end`. */
function ended(end: ParseEnd): RecordStream {
  return {
    records: (function* (): Generator<RawRecord, ParseEnd, undefined> {
      yield* [];
      return end;
    })(),
  };
}

/** The end of a file that is not CSV; any other error is thrown on. */
function notCsv(err: unknown, places: CsvPlaces): ParseEnd {
  if (!(err instanceof CsvError)) throw err;
  const at = places.position(err.offset);
  return {
    problems: [{ severity: 'error', message: `not valid CSV: ${err.message}`, line: at.line, column: at.column }],
    unreadable: true,
    void: true,
  };
}

/** Whether the rest of the file is CSV: a file that is not is "not valid CSV" whatever else is wrong with it. */
function restIsCsv(rows: Iterator<CsvRow>, places: CsvPlaces): ParseEnd | undefined {
  try {
    while (!rows.next().done);
    return undefined;
  } catch (err) {
    return notCsv(err, places);
  }
}

/**
 * The header's columns, with a problem for each refused one. A column naming a forbidden key is refused and never
 * read: '__proto__.status' would set every object's status. The file's other columns and rows are still read; its
 * offers are quarantined, as what it meant is unknown. Headers as sellers write them ('External ID') name their
 * fields; a header naming none is said once, here.
 */
function readColumns(header: CsvRow, options: ParseOptions, places: CsvPlaces, problems: ParseProblem[]): CsvColumns {
  const names = header.cells.map((c) => c.trim());
  const refused = new Set<number>();
  for (let c = 0; c < names.length; c++) {
    const bad = names[c]!.split('.').find((s) => isForbiddenKey(s.trim()));
    if (bad === undefined) continue;
    refused.add(c);
    const reason = forbiddenKeyMessage(bad.trim());
    problems.push({
      severity: 'error',
      message: `column '${names[c]}': ${reason}; until then nothing from this file is archived`,
      ...places.cell(header, c),
      field: names[c]!,
    });
  }
  const written = [...names];
  let headerUnit: PriceUnit | undefined;
  if (options.kind) {
    for (let c = 0; c < names.length; c++) {
      if (names[c] === '' || refused.has(c)) continue;
      const match = matchHeader(names[c]!, options.kind, options);
      if ('name' in match) {
        names[c] = match.name;
        if (match.priceUnit) headerUnit = match.priceUnit;
      } else if ('ignored' in match) refused.add(c);
      else {
        refused.add(c);
        problems.push({ severity: 'warning', message: match.message, ...places.cell(header, c), field: names[c]! });
      }
    }
  }
  return { names, written, refused, headerUnit };
}

/** The error of the first column naming a field an earlier column names: the file is then not read. */
function columnNamedTwice(columns: CsvColumns, header: CsvRow, places: CsvPlaces): ParseProblem | undefined {
  const { names, written, refused } = columns;
  const seen = new Map<string, number>();
  for (let c = 0; c < names.length; c++) {
    const name = names[c]!;
    if (name === '' || refused.has(c)) continue;
    const before = seen.get(name);
    if (before !== undefined) {
      return {
        severity: 'error',
        message:
          written[before] === written[c]
            ? `column '${name}' appears twice in the header: give each field one column`
            : `columns '${written[before]}' and '${written[c]}' both name ${name}: give each field one column`,
        ...places.cell(header, c),
        field: name,
      };
    }
    seen.set(name, c);
  }
  return undefined;
}

function fieldPath(name: string): FieldPath {
  const dot = name.indexOf('.');
  return dot > 0 ? [name.slice(0, dot), name.slice(dot + 1)] : [name];
}

/**
 * The unit of the price column: its header's, else the setting's; stated by neither, a column mixing whole
 * numbers and fractions is refused (price-column.ts).
 */
function priceLayout(
  columns: CsvColumns,
  options: ParseOptions,
  rows: () => Iterator<CsvRow>,
  mark: DecimalMark,
): PriceLayout {
  const column = options.kind ? columns.names.indexOf('price') : -1;
  const unit = columns.headerUnit ?? settingUnit(options.priceUnit, options.kind);
  const scan = column >= 0 && unit === undefined ? scanPrices(rows, column, mark) : undefined;
  return { column, unit, ambiguous: scan?.mixed === true ? scan : undefined };
}

/** A row as a record; a cell under no column name and a row short of cells are warnings in `problems`. */
function rowRecord(row: CsvRow, layout: RowLayout, places: CsvPlaces, problems: ParseProblem[]): RawRecord {
  const { names, paths, refused, price } = layout;
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
        ...places.cell(row, c),
      });
      continue;
    }
    if (path.length === 1) {
      const field = cellField(name, cell);
      setOwn(obj, field, CSV_LIST_FIELDS.has(field) && cell.includes('|') ? cell.split('|') : cell);
    } else {
      const inner = getOwn(obj, name);
      const nested: Record<string, unknown> = isPlainObject(inner) ? inner : {};
      setOwn(nested, path[1], cell);
      setOwn(obj, name, nested);
    }
  }
  const priceCell = price.ambiguous ? row.cells[price.column] : undefined;
  const fieldErrors =
    priceCell !== undefined && isWholePrice(priceCell, layout.decimalMark) === true
      ? [{ path: ['price'], message: ambiguousPriceMessage(layout.written[price.column]!) }]
      : undefined;
  const error = cellCountError(row, names.length, layout.delimiter, problems);
  return {
    value: obj,
    line: row.line,
    offset: row.offset,
    ...(error ? { error } : {}),
    ...(layout.decimalMark === 'comma' ? { decimalMark: 'comma' as const } : {}),
    ...(price.unit ? { priceUnit: price.unit } : {}),
    ...(fieldErrors ? { fieldErrors } : {}),
    fromText: true,
  };
}

/** A row of more cells than the header has columns is an error of its record; of fewer, a warning. */
function cellCountError(
  row: CsvRow,
  columns: number,
  delimiter: CsvDelimiter,
  problems: ParseProblem[],
): string | undefined {
  if (row.cells.length > columns) {
    const d = DELIMITER_NAME[delimiter];
    return (
      `this row has ${row.cells.length} cells but the header has ${columns} columns (${d}-separated): ` +
      `put double quotes around a value that contains a ${d}`
    );
  }
  if (row.cells.length < columns) {
    problems.push({
      severity: 'warning',
      message:
        `this row has ${row.cells.length} cells but the header has ${columns} columns: the missing ` +
        `ones are taken as empty`,
      line: row.line,
      column: 1,
    });
  }
  return undefined;
}

/** The cell of a record's field, or of the field it is part of (images.0 is in the images column). */
function locator(columns: CsvColumns, places: CsvPlaces): Locator {
  const { names, refused } = columns;
  const at = new Map(names.flatMap((n, c) => (refused.has(c) ? [] : [[n, c] as const])));
  return (record, path) => {
    if (record.offset === undefined) return undefined;
    for (let k = path.length; k > 0; k--) {
      const c = at.get(path.slice(0, k).join('.'));
      if (c !== undefined) return places.cell({ offset: record.offset }, c);
    }
    return places.position(record.offset);
  };
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

/** The price column's cells, read on their own before the records (as the decimal mark is), until settled. */
function scanPrices(rows: () => Iterator<CsvRow>, column: number, mark: DecimalMark): PriceColumnScan {
  const scan = new PriceColumnScan();
  const it = rows();
  try {
    it.next(); // the header
    for (let r = it.next(); !r.done && !scan.settled; r = it.next()) {
      const cell = r.value.cells[column];
      if (cell !== undefined && cell.trim() !== '') scan.add(cell, `line ${r.value.line}`, mark);
    }
  } catch (err) {
    // Not CSV further down: the records' read says so.
    if (!(err instanceof CsvError)) throw err;
  }
  return scan;
}
