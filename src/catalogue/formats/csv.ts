// CSV catalogue files: a header row, dotted column names for nested fields, '|' between list items; read a row
// at a time (the rows themselves: ../csv.ts). Also how a file's decimal mark is found.
import { forbiddenKeyMessage, getOwn, isForbiddenKey, setOwn } from '../../input/forbidden-keys.ts';
import { CsvError, DELIMITER_CHAR, cellOffsets, readCsv, type CsvDelimiter, type CsvRow } from '../csv-rows.ts';
import { cellField, matchHeader } from '../headers.ts';
import { type DecimalMark, hasDecimalComma, isWholePrice, type PriceUnit, settingUnit } from '../price.ts';
import { ambiguousPriceMessage, PriceColumnScan } from '../price-column.ts';
import { LineIndex, type TextPosition } from '../text-position.ts';
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
  // No header row: the loader says what an empty file means (load-file.ts).
  if (!header) return ended({ problems, unreadable: false, void: true });
  const names = header.cells.map((c) => c.trim());
  // The cells of the row last asked about: its problems come one after the other, and a row of many unknown
  // columns has one per column, so walking the row again for each would be quadratic in its length.
  let asked: { offset: number; cells: number[] } | undefined;
  const cellAt = (row: { offset: number }, index: number): TextPosition => {
    if (asked?.offset !== row.offset) asked = { offset: row.offset, cells: cellOffsets(text, row.offset, delimiter) };
    return position(asked.cells[index] ?? row.offset);
  };
  // A column naming a forbidden key is refused and never read: '__proto__.status' would set every object's status.
  // The file's other columns and rows are still read; its offers are quarantined, as what it meant is unknown.
  const refused = new Set<number>();
  for (let c = 0; c < names.length; c++) {
    const bad = names[c]!.split('.').find((s) => isForbiddenKey(s.trim()));
    if (bad === undefined) continue;
    refused.add(c);
    const reason = forbiddenKeyMessage(bad.trim());
    problems.push({
      severity: 'error',
      message: `column '${names[c]}': ${reason}; until then nothing from this file is archived`,
      ...cellAt(header, c),
      field: names[c]!,
    });
  }
  // Headers as sellers write them ('External ID') name their fields; a header naming none is said once, here.
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
        problems.push({ severity: 'warning', message: match.message, ...cellAt(header, c), field: names[c]! });
      }
    }
  }
  const seen = new Map<string, number>();
  for (let c = 0; c < names.length; c++) {
    const name = names[c]!;
    if (name === '' || refused.has(c)) continue;
    const before = seen.get(name);
    if (before !== undefined) {
      const broken = restIsCsv(reader.rows);
      if (broken) return ended(broken);
      problems.push({
        severity: 'error',
        message:
          written[before] === written[c]
            ? `column '${name}' appears twice in the header: give each field one column`
            : `columns '${written[before]}' and '${written[c]}' both name ${name}: give each field one column`,
        ...cellAt(header, c),
        field: name,
      });
      return ended({ problems, unreadable: true, void: true });
    }
    seen.set(name, c);
  }
  const unreadable = [...refused].some((c) => names[c]!.split('.').some((s) => isForbiddenKey(s.trim())));
  const paths = names.map((n) => {
    const dot = n.indexOf('.');
    return dot > 0 ? ([n.slice(0, dot), n.slice(dot + 1)] as const) : ([n] as const);
  });
  const decimal = decimalMarkOf(() => readCsv(text, setting).rows, names, delimiter, options.decimalMark);
  // The unit of the price column: its header's, else the setting's; stated by neither, a column mixing whole
  // numbers and fractions is refused (price-column.ts).
  const priceColumn = options.kind ? names.indexOf('price') : -1;
  const priceUnit = headerUnit ?? settingUnit(options.priceUnit, options.kind);
  const priceScan =
    priceColumn >= 0 && priceUnit === undefined
      ? scanPrices(() => readCsv(text, setting).rows, priceColumn, decimal.decimalMark)
      : undefined;
  const ambiguous = priceScan?.mixed === true;
  if (ambiguous) {
    problems.push({
      severity: 'error',
      message: priceScan!.message(written[priceColumn]!),
      ...cellAt(header, priceColumn),
      field: 'price',
    });
  }
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
            const field = cellField(name, cell);
            setOwn(obj, field, CSV_LIST_FIELDS.has(field) && cell.includes('|') ? cell.split('|') : cell);
          } else {
            const inner = getOwn(obj, name);
            const nested: Record<string, unknown> = isPlainObject(inner) ? inner : {};
            setOwn(nested, path[1], cell);
            setOwn(obj, name, nested);
          }
        }
        const priceCell = ambiguous ? row.cells[priceColumn] : undefined;
        const fieldErrors =
          priceCell !== undefined && isWholePrice(priceCell, decimal.decimalMark) === true
            ? [{ path: ['price'], message: ambiguousPriceMessage(written[priceColumn]!) }]
            : undefined;
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
          ...(priceUnit ? { priceUnit } : {}),
          ...(fieldErrors ? { fieldErrors } : {}),
          fromText: true,
        };
      }
    } catch (err) {
      return notCsv(err);
    }
    return { problems, unreadable, csv: dialect };
  }
  const columns = new Map(names.flatMap((n, c) => (refused.has(c) ? [] : [[n, c] as const])));
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
