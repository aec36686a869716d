// Top-up offer fields (API document 2.6) and the zod schema of a top-up catalogue file.
import { EXTERNAL_ID, fieldTable, GAME } from './field-spec.ts';
import { fileSchemaOf } from './zod-schema.ts';

export const TOPUP_STATUSES = ['draft', 'pending', 'listed', 'archived'] as const;
export const WAITING_TIME_UNITS = ['minutes', 'hours', 'days'] as const;

export const TOPUP_FIELDS = fieldTable({
  external_id: EXTERNAL_ID,
  game: GAME,
  game_name: { type: 'string', description: 'Display name of the game.' },
  service_label: { type: 'string', description: 'Service label.' },
  offer_key: { type: 'string', description: 'Offer key.' },
  offer_title: {
    type: 'string',
    required: true,
    distinct: true,
    description: 'Offer title (the marketplace refuses a top-up without one).',
  },
  offer_amount: { type: 'int', min: 0, description: 'Amount delivered (in offer_unit).' },
  offer_unit: { type: 'string', description: 'Unit of the amount (gems, coins, ...).' },
  region: { type: 'string', description: 'Region.' },
  platform: { type: 'string', description: 'Platform.' },
  price: { type: 'price', description: 'Integer cents (1999), or a decimal amount in major units (19.99 or "19.99").' },
  currency: { type: 'string', description: 'Currency.' },
  stock: { type: 'int', min: 0, description: 'Units in stock.' },
  min_quantity: { type: 'int', min: 1, description: 'Smallest quantity per order.' },
  waiting_time_value: { type: 'int', min: 0, description: 'Delivery time, in waiting_time_unit.' },
  waiting_time_unit: {
    type: 'enum',
    values: WAITING_TIME_UNITS,
    synonyms: { minute: 'minutes', min: 'minutes', mins: 'minutes', hour: 'hours', h: 'hours', day: 'days', d: 'days' },
    description: 'minutes, hours or days.',
  },
  instructions: { type: 'string', description: 'Instructions for the buyer.' },
  image: { type: 'string', description: 'Image (as the marketplace takes it: a URL).' },
  active: { type: 'bool', description: 'true or false.' },
  status: {
    type: 'enum',
    values: TOPUP_STATUSES,
    description: 'Status to set; left out, the configured default applies.',
  },
});

export const topupFileSchema = fileSchemaOf('topup', TOPUP_FIELDS);
