// The canonical values of one record, by their API names (nested ones dotted: parameters.level,
// credentials.login), as the record walker left them, read back typed by the kind's normaliser. A read takes
// only a name the field table's type gives a value of that type (field-spec.ts, FieldsOf): a name missing from
// the table, an alias, or a field read as another type is a compile error, not a run-time surprise.
import type { AccountDetails, JsonValue, OfferKind } from './desired-offer.ts';
import type { FieldsOf, FieldTable, RequiredFieldsOf } from './field-spec.ts';
import { typeName } from './price.ts';

/** The names a text read takes: the table's strings and enums, and the credentials' strings (accounts). */
export type TextName<T extends FieldTable, C extends FieldTable> =
  | FieldsOf<T, 'string' | 'enum'>
  | `credentials.${FieldsOf<C, 'string'>}`;

/** No nested credentials table (items, top-ups). */
export type NoFields = FieldTable<never>;

export class RecordValues<T extends FieldTable, C extends FieldTable = NoFields> {
  constructor(
    private readonly kind: OfferKind,
    /** Canonical values by target name; nested ones dotted. */
    private readonly values: ReadonlyMap<string, JsonValue>,
    /** Objects the record states even when empty (parameters: {}). */
    private readonly containers: ReadonlySet<string> | undefined,
  ) {}

  // A value of another type than the read's can only come of a field table that the type system did not see
  // (one typed as a plain FieldTable): a bug, not a problem of the file.

  text(name: TextName<T, C>): string | undefined {
    const v = this.values.get(name);
    if (v === undefined || typeof v === 'string') return v;
    return this.mismatch(name, v, 'a string');
  }

  number(name: FieldsOf<T, 'int' | 'price'>): number | undefined {
    const v = this.values.get(name);
    if (v === undefined || typeof v === 'number') return v;
    return this.mismatch(name, v, 'a number');
  }

  bool(name: FieldsOf<T, 'bool'>): boolean | undefined {
    const v = this.values.get(name);
    if (v === undefined || typeof v === 'boolean') return v;
    return this.mismatch(name, v, 'true or false');
  }

  /** A rank or a division: a canonical name or a numeric id. */
  nameOrId(name: FieldsOf<T, 'rank' | 'division'>): string | number | undefined {
    const v = this.values.get(name);
    if (v === undefined || typeof v === 'string' || typeof v === 'number') return v;
    return this.mismatch(name, v, 'a name or an id');
  }

  oneOf<V extends string>(name: FieldsOf<T, 'enum'>, allowed: readonly V[]): V | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    const found = allowed.find((a) => a === v);
    return found ?? this.mismatch(name, v, `one of ${allowed.join(', ')}`);
  }

  strings(name: FieldsOf<T, 'list' | 'urls'>): readonly string[] | undefined {
    return this.list(name, (x): x is string => typeof x === 'string', 'a list of strings');
  }

  numbers(name: FieldsOf<T, 'image_ids'>): readonly number[] | undefined {
    return this.list(name, (x): x is number => typeof x === 'number', 'a list of numbers');
  }

  /** The values of a required field: the walk reported its absence, so here it is there. */
  requiredText(name: RequiredFieldsOf<T, 'string' | 'enum'>): string {
    return this.text(name) ?? this.mismatch(name, undefined, 'a string (required)');
  }

  requiredNumber(name: RequiredFieldsOf<T, 'int' | 'price'>): number {
    return this.number(name) ?? this.mismatch(name, undefined, 'a number (required)');
  }

  /** The object of details under `container` (parameters); undefined when the record states none. */
  details(container: FieldsOf<T, 'parameters'>): AccountDetails | undefined {
    if (!this.containers?.has(container)) return undefined;
    const prefix = `${container}.`;
    const out: { [detail: string]: JsonValue } = {};
    for (const [name, v] of this.values) if (name.startsWith(prefix)) out[name.slice(prefix.length)] = v;
    return out;
  }

  // Lists are copied to arrays of their exact length: an array grown by push keeps spare room, and every
  // loaded offer keeps its lists.
  private list<E>(name: string, is: (x: JsonValue) => x is E & JsonValue, expected: string): readonly E[] | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (Array.isArray(v)) {
      const out = new Array<E>(v.length);
      let i = 0;
      for (const x of v) if (is(x)) out[i++] = x;
      if (i === v.length) return out;
    }
    return this.mismatch(name, v, expected);
  }

  private mismatch(name: string, v: JsonValue | undefined, expected: string): never {
    throw new Error(
      `${this.kind} normaliser: ${name} is ${v === undefined ? 'missing' : typeName(v)} where ${expected} was ` +
        'expected: its field table and its normaliser disagree',
    );
  }
}
