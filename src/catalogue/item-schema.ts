// Item offer fields (API document 2.5) and the zod schema of an item catalogue file.
import { EXTERNAL_ID, type FieldTable } from './field-spec.ts';
import { fileSchemaOf } from './zod-schema.ts';

export const ITEM_FIELDS: FieldTable = {
  external_id: EXTERNAL_ID,
  title: { type: 'string', required: true, distinct: true, description: 'Title of the listing.' },
  price: {
    type: 'price',
    required: true,
    description: 'Integer cents (1999), or a decimal amount in major units (19.99 or "19.99").',
  },
  type: { type: 'string', description: 'Item type.' },
  game: { type: 'string', description: 'Game.' },
  server: { type: 'string', description: 'Server or region.' },
  stock: { type: 'int', min: 0, description: 'Units in stock.' },
  // The document leaves item statuses open: any word is passed on.
  status: { type: 'string', description: 'Status to set; left out, the configured default applies.' },
  description: { type: 'string', description: 'Description (the marketplace does not echo it back).' },
};

export const itemFileSchema = fileSchemaOf('item', ITEM_FIELDS);
