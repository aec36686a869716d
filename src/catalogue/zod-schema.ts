// zod schemas of catalogue files, derived from the field tables. They describe the forms a seller may
// write (for `offersync schema` and editors); the loader's own normaliser applies the same tables without
// zod, because it must report every problem with its place and keep going, and be fast at 100k offers.
import { z } from 'zod';
import type { OfferKind } from './desired-offer.ts';
import type { FieldSpec, FieldTable } from './field-spec.ts';

// A new instance at each use: a shared one would become an anonymous $ref in the JSON Schema.
const intString = (): z.ZodString => z.string().regex(/^\s*\d+\s*$/);

function intSchema(spec: Pick<FieldSpec, 'min' | 'max'>): z.ZodType {
  let n = z.int();
  if (spec.min !== undefined) n = n.min(spec.min);
  if (spec.max !== undefined) n = n.max(spec.max);
  return z.union([n, intString()]);
}

function fieldSchema(spec: FieldSpec, nested: Nested): z.ZodType {
  switch (spec.type) {
    case 'string':
      return z.string();
    case 'int':
      return intSchema(spec);
    case 'price':
      return z.union([z.number().positive(), z.string().regex(/^\s*(\d+|\d+\.\d*|\.\d+)\s*$/)]);
    case 'bool':
      return z.union([z.boolean(), z.enum(['true', 'false', 'yes', 'no', '1', '0'])]);
    case 'enum':
      return z.enum(spec.values as [string, ...string[]]);
    case 'rank':
      return z.union([z.string(), z.int().min(0)]);
    case 'division':
      return z.union([z.enum(['I', 'II', 'III', 'IV']), z.int().min(0), intString()]);
    case 'list':
    case 'urls':
    case 'images':
      return z.union([z.array(z.string()), z.string()]);
    case 'image_ids':
      return z.union([
        z.array(z.union([z.int().positive(), intString()])),
        z.string().regex(/^[\d,\s]*$/),
        z.array(z.object({ id: z.int().positive() })),
        z.array(z.object({ image_id: z.int().positive() })),
      ]);
    case 'parameters':
      return z.looseObject(shapeOf(nested.parameters, nested, false));
    case 'credentials':
      return z.strictObject(shapeOf(nested.credentials, nested, false));
    default:
      return spec.type satisfies never;
  }
}

function shapeOf(table: FieldTable, nested: Nested, offer: boolean): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  if (offer) shape.$schema = z.string().optional().describe('Address of this JSON Schema, for editors.');
  for (const [name, spec] of Object.entries(table)) {
    const s = fieldSchema(spec, nested).describe(spec.description);
    shape[name] = spec.required ? s : s.optional();
  }
  return shape;
}

type Nested = { readonly parameters: FieldTable; readonly credentials: FieldTable };
const NONE: Nested = { parameters: {}, credentials: {} };

export interface KindSchema {
  /** One offer. */
  readonly offer: z.ZodType;
  /** A whole file: one offer, a list of offers, or {kind, offers: [...]}. */
  readonly file: z.ZodType;
}

/** The schema of one offer and of a whole file of that kind. */
export function fileSchemaOf(kind: OfferKind, table: FieldTable, tables: Nested = NONE): KindSchema {
  const offer = z
    .strictObject(shapeOf(table, tables, true))
    .meta({ id: `${kind}_offer`, description: `One ${kind} offer.` });
  const file = z
    .union([
      offer,
      z.array(offer),
      z.strictObject({
        $schema: z.string().optional(),
        kind: z.literal(kind).optional().describe('Kind of the offers in this file; overrides the folder.'),
        offers: z.array(offer),
      }),
    ])
    .describe(`An offersync catalogue file of ${kind} offers: one offer, a list of offers, or {kind, offers: [...]}.`);
  return { offer, file };
}
