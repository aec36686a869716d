// RFC 4180 CSV: quoted fields with embedded commas, quotes ("") and newlines; CRLF, LF or CR line ends;
// a UTF-8 BOM is dropped. Blank lines are skipped. Rows keep the line they start on, for messages.

export interface CsvRow {
  /** 1-based line on which the row starts. */
  readonly line: number;
  readonly cells: string[];
}

export class CsvError extends Error {
  override readonly name = 'CsvError';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

export function parseCsv(input: string): CsvRow[] {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const rows: CsvRow[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  while (i < n) {
    const rowLine = line;
    const cells: string[] = [];
    let endOfRow = false;
    while (!endOfRow) {
      let cell: string;
      if (text.charCodeAt(i) === QUOTE) {
        const startLine = line;
        let j = i + 1;
        let parts = '';
        for (;;) {
          const q = text.indexOf('"', j);
          if (q < 0) throw new CsvError('a quoted field is never closed: add the closing double quote', startLine);
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
        if (i < n && next !== COMMA && next !== LF && next !== CR) {
          throw new CsvError(
            'unexpected text after a closing double quote: a quote inside a quoted field is written twice ("")',
            line,
          );
        }
      } else {
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === COMMA || c === LF || c === CR) break;
          j++;
        }
        cell = text.slice(i, j);
        i = j;
      }
      cells.push(cell);
      const c = text.charCodeAt(i);
      if (c === COMMA) {
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
    if (!(cells.length === 1 && cells[0] === '')) rows.push({ line: rowLine, cells });
    // Blank lines: skip without a row.
    while (i < n && (text.charCodeAt(i) === LF || text.charCodeAt(i) === CR)) {
      i += text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
    }
  }
  return rows;
}
