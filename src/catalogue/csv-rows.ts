// RFC 4180 CSV as spreadsheets write it: comma, semicolon or tab between cells (Excel and LibreOffice in much
// of Europe write semicolons), quoted fields with embedded delimiters, quotes ("") and newlines; CRLF, LF or
// CR line ends; a UTF-8 BOM is dropped; Excel's `sep=;` first line names the delimiter. Blank lines, and lines of
// bare delimiters, are skipped. Rows keep the line and offset they start on, so that a cell can be found again
// for a message.

export const CSV_DELIMITERS = ['comma', 'semicolon', 'tab'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];
export const DELIMITER_CHAR: Readonly<Record<CsvDelimiter, string>> = { comma: ',', semicolon: ';', tab: '\t' };

export interface CsvRow {
  /** 1-based line on which the row starts. */
  readonly line: number;
  /** Offset of the row's first character in the text given to parseCsv. */
  readonly offset: number;
  readonly cells: string[];
}

export interface CsvTable {
  readonly rows: CsvRow[];
  readonly delimiter: CsvDelimiter;
  /** Where the delimiter came from. */
  readonly delimiterFrom: 'sep line' | 'header' | 'setting';
}

export class CsvError extends Error {
  override readonly name = 'CsvError';
  constructor(
    message: string,
    readonly line: number,
    /** Offset in the text given to parseCsv, for the column. */
    readonly offset: number,
  ) {
    super(message);
  }
}

const QUOTE = 34;
const LF = 10;
const CR = 13;
const BOM = 0xfeff;
const SEP_LINE = /^sep=(.)(\r\n|\n|\r|$)/i;

function delimiterOf(ch: string): CsvDelimiter | undefined {
  return CSV_DELIMITERS.find((d) => DELIMITER_CHAR[d] === ch);
}

/**
 * The delimiter of the header line: the candidate found most often outside quotes (comma on a tie or when
 * none is found, so a one-column file stays a comma file).
 */
export function detectDelimiter(text: string, from = 0): CsvDelimiter {
  const counts: Record<CsvDelimiter, number> = { comma: 0, semicolon: 0, tab: 0 };
  let quoted = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted) {
      const d = delimiterOf(c);
      if (d) counts[d]++;
    }
  }
  let best: CsvDelimiter = 'comma';
  for (const d of CSV_DELIMITERS) if (counts[d] > counts[best]) best = d;
  return best;
}

/** A CSV text's delimiter, and its rows one at a time (rows.next() throws the CsvError of a row that is not CSV). */
export interface CsvReader {
  readonly delimiter: CsvDelimiter;
  readonly delimiterFrom: CsvTable['delimiterFrom'];
  readonly rows: Generator<CsvRow, void, undefined>;
}

/**
 * Parses a whole CSV text. Offsets are into `input` as given (a BOM counts as one character). The delimiter is
 * the `sep=` line's, else `delimiter` when given, else detected from the header line.
 */
export function parseCsv(input: string, delimiter?: CsvDelimiter): CsvTable {
  const r = readCsv(input, delimiter);
  return { rows: [...r.rows], delimiter: r.delimiter, delimiterFrom: r.delimiterFrom };
}

/** parseCsv one row at a time, so that a large file's rows are never all held at once. */
export function readCsv(input: string, delimiter?: CsvDelimiter): CsvReader {
  let i = input.charCodeAt(0) === BOM ? 1 : 0;
  let line = 1;
  let chosen: CsvDelimiter;
  let delimiterFrom: CsvTable['delimiterFrom'];
  const sep = SEP_LINE.exec(input.slice(i, i + 8));
  const sepDelimiter = sep ? delimiterOf(sep[1]!) : undefined;
  if (sep && sepDelimiter) {
    chosen = sepDelimiter;
    delimiterFrom = 'sep line';
    i += sep[0].length;
    line++;
  } else if (delimiter) {
    chosen = delimiter;
    delimiterFrom = 'setting';
  } else {
    chosen = detectDelimiter(input, i);
    delimiterFrom = 'header';
  }
  return { delimiter: chosen, delimiterFrom, rows: csvRows(input, i, line, DELIMITER_CHAR[chosen].charCodeAt(0)) };
}

function* csvRows(text: string, from: number, firstLine: number, DELIM: number): Generator<CsvRow, void, undefined> {
  let i = from;
  let line = firstLine;
  const n = text.length;
  while (i < n) {
    const rowLine = line;
    const rowOffset = i;
    const cells: string[] = [];
    let endOfRow = false;
    while (!endOfRow) {
      let cell: string;
      if (text.charCodeAt(i) === QUOTE) {
        const startLine = line;
        const start = i;
        let j = i + 1;
        let parts = '';
        for (;;) {
          const q = text.indexOf('"', j);
          if (q < 0)
            throw new CsvError('a quoted field is never closed: add the closing double quote', startLine, start);
          parts += text.slice(j, q);
          if (text.charCodeAt(q + 1) === QUOTE) {
            parts += '"';
            j = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        for (let k = 0; k < parts.length; k++) {
          const c = parts.charCodeAt(k);
          if (c === LF || (c === CR && parts.charCodeAt(k + 1) !== LF)) line++;
        }
        cell = parts;
        const next = text.charCodeAt(i);
        if (i < n && next !== DELIM && next !== LF && next !== CR) {
          throw new CsvError(
            'unexpected text after a closing double quote: a quote inside a quoted field is written twice ("")',
            line,
            i,
          );
        }
      } else {
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === DELIM || c === LF || c === CR) break;
          j++;
        }
        cell = text.slice(i, j);
        i = j;
      }
      cells.push(cell);
      const c = text.charCodeAt(i);
      if (c === DELIM) {
        i++;
        if (i >= n) {
          cells.push('');
          endOfRow = true;
        }
      } else {
        // End of line or of input.
        if (c === CR) i += text.charCodeAt(i + 1) === LF ? 2 : 1;
        else if (c === LF) i++;
        if (i <= n) line++;
        endOfRow = true;
      }
    }
    // A row of bare delimiters (';;;;', the rows Excel leaves below a table it once held) is blank as well.
    if (!cells.every((c) => c.trim() === '')) yield { line: rowLine, offset: rowOffset, cells };
    // Blank lines: skip without a row.
    while (i < n && (text.charCodeAt(i) === LF || text.charCodeAt(i) === CR)) {
      i += text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
    }
  }
}

/**
 * Offsets of the starts of the cells of the row starting at `rowOffset`, found again by walking the row once;
 * for messages only, so rows need not keep every cell's offset. Stops early at a quote never closed.
 */
export function cellOffsets(text: string, rowOffset: number, delimiter: CsvDelimiter): number[] {
  const DELIM = DELIMITER_CHAR[delimiter].charCodeAt(0);
  const offsets = [rowOffset];
  let i = rowOffset;
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) return offsets;
        if (text.charCodeAt(q + 1) === QUOTE) j = q + 2;
        else {
          i = q + 1;
          break;
        }
      }
    }
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === DELIM || c === LF || c === CR) break;
      i++;
    }
    if (text.charCodeAt(i) !== DELIM) return offsets;
    i++;
    offsets.push(i);
  }
}
