// One table per kind says which fields a catalogue offer may carry and in which forms. The normaliser and
// the zod schema (for the JSON Schema editors use) are both derived from it, so they cannot drift apart: the
// kind's normaliser reads each value back by a name the table's type knows (record-values.ts), so a name the
// table lacks, or a field read as another type than the table gives it, does not compile.

export const FIELD_TYPES = [
  'string',
  'int',
  'price',
  'bool',
  'enum',
  'rank',
  'division',
  'list',
  'urls',
  'image_ids',
  'images',
  'parameters',
  'credentials',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldSpec {
  readonly type: FieldType;
  readonly description: string;
  readonly required?: boolean;
  /** Allowed values (enum), compared in lower case. */
  readonly values?: readonly string[];
  /** Accepted synonyms of an enum value (singular "hour" for "hours"). */
  readonly synonyms?: Readonly<Record<string, string>>;
  /** Bounds of an integer. */
  readonly min?: number;
  readonly max?: number;
  /** The field is an alias: its value is written under this name. */
  readonly target?: string;
  /** Accepted for compatibility but belongs elsewhere (target); a warning says where. */
  readonly legacy?: boolean;
  /** Kept exactly as written (passwords: a space may be part of one). */
  readonly verbatim?: boolean;
  /** A credential: never quoted back in a message, and only a string is taken (no number turned into one). */
  readonly secret?: boolean;
  /** Different on (nearly) every offer, as a title: not worth looking up among the load's shared strings. */
  readonly distinct?: boolean;
}

/** A table of fields by name; K, the names, is a union of string literals for a table written with fieldTable(). */
export type FieldTable<K extends string = string> = { readonly [N in K]: FieldSpec };

/** A table as written, its names and each field's spec kept by its type (fieldTable({...}), not `: FieldTable`). */
export function fieldTable<const T extends FieldTable>(table: T): T {
  return table;
}

/** The names of a table's fields of these types that hold a value of their own (an alias's target holds it). */
export type FieldsOf<T extends FieldTable, Types extends FieldType> = {
  [N in keyof T & string]: T[N] extends { readonly type: Types; readonly target?: undefined } ? N : never;
}[keyof T & string];

/** As FieldsOf, the required fields only. */
export type RequiredFieldsOf<T extends FieldTable, Types extends FieldType> = {
  [N in FieldsOf<T, Types>]: T[N] extends { readonly required: true } ? N : never;
}[FieldsOf<T, Types>];

export const EXTERNAL_ID: FieldSpec = {
  type: 'string',
  required: true,
  description: "The seller's own identifier of the offer: unique within its kind.",
};

// Fields several kinds share, spelt once: each keeps its literal type (required: true) for RequiredFieldsOf.
export const TITLE = {
  type: 'string',
  required: true,
  distinct: true,
  description: 'Title of the listing.',
} as const satisfies FieldSpec;
export const PRICE = {
  type: 'price',
  required: true,
  description: 'Integer cents (1999), or a decimal amount in major units (19.99 or "19.99").',
} as const satisfies FieldSpec;
export const GAME = { type: 'string', description: 'Game.' } as const satisfies FieldSpec;
export const SERVER = { type: 'string', description: 'Server or region.' } as const satisfies FieldSpec;
