// Item offer fields (API document 2.5) and the zod schema of an item catalogue file.
import { ACCOUNT_STATUSES } from './account-schema.ts';
import { EXTERNAL_ID, fieldTable, GAME, PRICE, SERVER, TITLE } from './field-spec.ts';
import { fileSchemaOf } from './zod-schema.ts';

export const ITEM_FIELDS = fieldTable({
  external_id: EXTERNAL_ID,
  title: TITLE,
  price: PRICE,
  type: { type: 'string', description: 'Item type.' },
  game: GAME,
  server: SERVER,
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
