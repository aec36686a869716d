// The problems found in one record, each addressed so that a person can go straight to it: the file, its line and
// column (or spreadsheet cell) through the format's locator, the JSON pointer, the field's path, the offer's kind
// and external_id once known.
import { type CatalogueProblem, pointerToken } from './catalogue-problem.ts';
import type { OfferKind } from './desired-offer.ts';
import type { Locator, RawRecord } from './formats/parsed-file.ts';

/** Where a value is inside its record: keys and list indexes. */
export type RecordPath = readonly (string | number)[];

export class RecordProblems {
  readonly list: CatalogueProblem[] = [];
  /** How many of them are errors: one keeps the record out. */
  errors = 0;
  /** Named by every problem found once it is known (identity is read first). */
  externalId: string | undefined;

  constructor(
    private readonly kind: OfferKind,
    private readonly record: RawRecord,
    private readonly file: string,
    private readonly locate: Locator | undefined,
  ) {}

  add(severity: 'error' | 'warning', path: RecordPath, message: string): void {
    if (severity === 'error') this.errors++;
    const pointer = this.pointerOf(path);
    const at = this.locate?.(this.record, path);
    this.list.push({
      severity,
      file: this.file,
      ...(at
        ? { line: at.line, column: at.column, ...(at.cell !== undefined ? { cell: at.cell } : {}) }
        : this.record.line !== undefined
          ? { line: this.record.line }
          : {}),
      ...(pointer !== undefined ? { pointer } : {}),
      ...(path.length > 0 ? { field: path.join('.') } : {}),
      kind: this.kind,
      ...(this.externalId !== undefined ? { externalId: this.externalId } : {}),
      message,
    });
  }

  /** The JSON pointer of a value of the record, when the record has one (JSON, YAML). */
  pointerOf(path: RecordPath): string | undefined {
    if (this.record.pointer === undefined) return undefined;
    let p = this.record.pointer;
    for (const k of path) p += `/${pointerToken(k)}`;
    return p;
  }
}
