// Field-by-field checks shared by the three kinds: each rule turns a JSON value into the stored value or
// records a 422 naming the field. null clears an optional field.
import type { Validation } from './http-error.ts';

export type Rule =
  | { type: 'string'; required?: boolean }
  | { type: 'int'; min?: number; max?: number }
  /** A decimal of two places, as a DECIMAL column keeps it (12.5, 1000). */
  | { type: 'decimal'; min?: number }
  | { type: 'cents' } // integer cents > 0
  | { type: 'bool' }
  | { type: 'enum'; values: readonly string[] };

export type Body = Record<string, unknown>;

const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** A number that is not a whole one is shown with its value (`number 1.5`). */
const describeNumber = (v: unknown): string => `${describe(v)}${typeof v === 'number' ? ` ${v}` : ''}`;

/** The stored value, or undefined when the value was refused (the reason is in `v`). */
export function checkValue(field: string, value: unknown, rule: Rule, v: Validation): unknown {
  if (value === null) {
    if (rule.type === 'string' && rule.required) v.add(field, `The ${field} field is required.`);
    else if (rule.type === 'enum')
      v.add(field, `The ${field} field must be one of ${rule.values.join(', ')}, got null.`);
    else if (rule.type === 'cents') v.add(field, `The ${field} field must be a positive integer (cents).`);
    else return null;
    return undefined;
  }
  switch (rule.type) {
    case 'string':
      if (typeof value !== 'string') v.add(field, `The ${field} field must be a string, got ${describe(value)}.`);
      else if (rule.required && value.trim() === '') v.add(field, `The ${field} field is required.`);
      else return value;
      return undefined;
    case 'int':
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        v.add(field, `The ${field} field must be an integer, got ${describeNumber(value)}.`);
      else if (rule.min !== undefined && value < rule.min)
        v.add(field, `The ${field} field must be at least ${rule.min}.`);
      else if (rule.max !== undefined && value > rule.max)
        v.add(field, `The ${field} field must not be greater than ${rule.max}.`);
      else return value;
      return undefined;
    case 'decimal':
      if (typeof value !== 'number' || !Number.isFinite(value))
        v.add(field, `The ${field} field must be a number, got ${describe(value)}.`);
      else if (rule.min !== undefined && value < rule.min)
        v.add(field, `The ${field} field must be at least ${rule.min}.`);
      else return Math.round(value * 100) / 100;
      return undefined;
    case 'cents':
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        v.add(field, `The ${field} field must be an integer (cents), got ${describeNumber(value)}.`);
      else if (value <= 0) v.add(field, `The ${field} field must be greater than 0.`);
      else return value;
      return undefined;
    case 'bool':
      if (typeof value !== 'boolean') v.add(field, `The ${field} field must be true or false, got ${describe(value)}.`);
      else return value;
      return undefined;
    case 'enum':
      if (typeof value !== 'string' || !rule.values.includes(value))
        v.add(
          field,
          `The selected ${field} is invalid; expected one of ${rule.values.join(', ')}, got ${JSON.stringify(value)}.`,
        );
      else return value;
      return undefined;
    default:
      return rule satisfies never;
  }
}

/** Checks every field of `rules` present in the body; returns the accepted values. */
export function checkFields(body: Body, rules: Readonly<Record<string, Rule>>, v: Validation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(rules)) {
    if (!(name in body) || body[name] === undefined) continue;
    const value = checkValue(name, body[name], rule, v);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export function requireFields(body: Body, names: readonly string[], v: Validation): void {
  for (const n of names) if (body[n] === undefined || body[n] === null) v.add(n, `The ${n} field is required.`);
}

/** An array of strings, or a comma-separated string; stored as an array. */
export function checkStringList(field: string, value: unknown, v: Validation): string[] | null | undefined {
  if (value === null) return null;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return [...(value as string[])];
  v.add(field, `The ${field} field must be an array of strings or a comma-separated string, got ${describe(value)}.`);
  return undefined;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
