// One table per kind says which fields a catalogue offer may carry and in which forms. The normaliser and
// the zod schema (for the JSON Schema editors use) are both derived from it, so they cannot drift apart.

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

export type FieldTable = Readonly<Record<string, FieldSpec>>;

export const EXTERNAL_ID: FieldSpec = {
  type: 'string',
  required: true,
  description: "The seller's own identifier of the offer: unique within its kind.",
};
