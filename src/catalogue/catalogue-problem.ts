// One problem found in the catalogue, addressed so that a person can go straight to it.
import type { OfferKind } from './desired-offer.ts';

export interface CatalogueProblem {
  readonly severity: 'error' | 'warning';
  /** Catalogue-relative path, forward slashes. */
  readonly file: string;
  /** 1-based line of the value the problem is about (or of its offer when the value is missing). */
  readonly line?: number;
  /** 1-based column on that line, with line: `file:line:column` is where an editor jumps. */
  readonly column?: number;
  /**
   * Spreadsheets (.xlsx, .ods): the cell as the spreadsheet names it, 'Sheet1!C3'; line and column are then its
   * row and column numbers (3 and 3), which is what `file:line:column` tools are given.
   */
  readonly cell?: string;
  /** RFC 6901 JSON pointer (JSON, YAML). */
  readonly pointer?: string;
  readonly kind?: OfferKind;
  readonly externalId?: string;
  /** The field, dotted for nested ones (credentials.login). */
  readonly field?: string;
  /** Says what is expected, or what to do. */
  readonly message: string;
}

/** file:line:column, as editors and terminals read it, or as much of it as is known. */
export function fileLineColumn(file: string, p: Pick<CatalogueProblem, 'line' | 'column'>): string {
  if (p.line === undefined) return file;
  return p.column !== undefined ? `${file}:${p.line}:${p.column}` : `${file}:${p.line}`;
}

/** RFC 6901 escaping of one reference token. */
export function pointerToken(key: string | number): string {
  return typeof key === 'number' ? String(key) : key.replace(/~/g, '~0').replace(/\//g, '~1');
}
