// Item offer fields (API document 2.5) and the zod schema of an item catalogue file.
import { ACCOUNT_STATUSES } from './account-schema.ts';
import { EXTERNAL_ID, fieldTable } from './field-spec.ts';
import { fileSchemaOf } from './zod-schema.ts';

export const ITEM_FIELDS = fieldTable({
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
  // The document lists no item statuses of their own: an item may take the statuses it names for offers (section
  // 3), and no other word, which no marketplace was shown to take and which would only come back as a 422.
  status: {
    type: 'enum',
    values: ACCOUNT_STATUSES,
    description:
      'Status to set (one of the statuses the API document names); left out, the configured default applies.',
  },
  description: { type: 'string', description: 'Description (the marketplace does not echo it back).' },
});

export const itemFileSchema = fileSchemaOf('item', ITEM_FIELDS);
