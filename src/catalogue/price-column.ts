// A sheet's price column that states no unit: under the API's rule a whole number is cents and an amount with a
// fraction is in major units, so `89` typed beside `24.99` in a column formatted as euros lists the offer at 0.89.
// Such a column is ambiguous as a whole; its whole-number cells are errors until the header or a setting says the
// unit (its cells with a fraction mean the same either way).
import { type DecimalMark, hasDecimalComma, isWholePrice } from './price.ts';

/** A cell as a person finds it ('Accounts!C3', 'line 3') and what it holds. */
export interface PriceCell {
  readonly at: string;
  readonly value: string;
}

/** Cells of each sort quoted in the column's error. */
const QUOTED = 3;

export class PriceColumnScan {
  private readonly whole: PriceCell[] = [];
  private readonly fraction: PriceCell[] = [];
  private wholeCount = 0;
  private fractionCount = 0;

  /** Counts a cell: a number, or a text cell read as CSV text is (a decimal comma where the text has one). */
  add(value: unknown, at: string, mark: DecimalMark = 'point'): void {
    const whole = isWholePrice(value, typeof value === 'string' && hasDecimalComma(value) ? 'comma' : mark);
    if (whole === undefined) return; // not a price at all: its own error says so
    const cell = { at, value: String(value).trim() };
    if (whole) {
      this.wholeCount++;
      if (this.whole.length < QUOTED) this.whole.push(cell);
    } else {
      this.fractionCount++;
      if (this.fraction.length < QUOTED) this.fraction.push(cell);
    }
  }

  /** Both sorts seen, enough of each to quote: the rest of the column need not be read. */
  get settled(): boolean {
    return this.whole.length >= QUOTED && this.fraction.length >= QUOTED;
  }

  get mixed(): boolean {
    return this.wholeCount > 0 && this.fractionCount > 0;
  }

  /** The column's error: names the column, the cells of each sort and the fix. */
  message(column: string): string {
    const list = (cells: readonly PriceCell[], count: number) =>
      cells.map((c) => `${c.at}: ${c.value}`).join(', ') + (count > cells.length ? ', ...' : '');
    const first = this.whole[0]!;
    const asCents = Number(first.value) / 100;
    return (
      `price column '${column}' mixes whole numbers (${list(this.whole, this.wholeCount)}) with amounts that have ` +
      `a fraction (${list(this.fraction, this.fractionCount)}) and does not say its unit, so a whole number could ` +
      `be cents (${first.value} would be ${asCents.toFixed(2)}) or whole euros: say the unit in the header, e.g. ` +
      `'Price (EUR)' (or 'Price (cents)'), or set catalogue.priceUnit. Until then the offers priced with a whole ` +
      'number are not synced'
    );
  }
}

/** The error of one whole-number cell of a mixed column: its offer is not synced. */
export function ambiguousPriceMessage(column: string): string {
  return (
    `a whole number in price column '${column}', which also holds amounts with a fraction and does not say its ` +
    `unit: cents or whole euros? Say the unit in the header, e.g. 'Price (EUR)'`
  );
}
