// CsvPlaces: where an offset, or a row's cell, is in a CSV text, as an editor counts it (line, column).
import { cellOffsets, type CsvDelimiter } from '../csv-rows.ts';
import { LineIndex, type TextPosition } from '../text-position.ts';

export class CsvPlaces {
  readonly #text: string;
  readonly #delimiter: CsvDelimiter;
  readonly #lines: LineIndex;
  /** A BOM is not a column an editor counts. */
  readonly #bom: number;
  // The cells of the row last asked about: its problems come one after the other, and a row of many unknown
  // columns has one per column, so walking the row again for each would be quadratic in its length.
  #asked: { offset: number; cells: number[] } | undefined;

  constructor(text: string, delimiter: CsvDelimiter) {
    this.#text = text;
    this.#delimiter = delimiter;
    this.#lines = new LineIndex(text);
    this.#bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  position(offset: number): TextPosition {
    const p = this.#lines.position(offset);
    return p.line === 1 && this.#bom ? { line: 1, column: Math.max(1, p.column - this.#bom) } : p;
  }

  /** The cell `index` of the row starting at `row.offset`; the row's start when it has no such cell. */
  cell(row: { readonly offset: number }, index: number): TextPosition {
    if (this.#asked?.offset !== row.offset)
      this.#asked = { offset: row.offset, cells: cellOffsets(this.#text, row.offset, this.#delimiter) };
    return this.position(this.#asked.cells[index] ?? row.offset);
  }
}
