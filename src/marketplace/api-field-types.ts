// The fields the API document gives each kind of offer (request and response), with the type it gives them.
// Decoding keeps these when echoed and ignores every other field (docs/architecture.md, Decoding). Credentials are
// deliberately absent: a server that echoed them must not get them into state, logs or reports.
import type { ResourceKind } from './marketplace-client.ts';

export const FIELD_TYPES = [
  'string',
  'integer',
  /** An integer or a decimal (`12.5`, `1000`), or a numeric string of one. */
  'number',
  'boolean',
  /** "string or integer" in the document: kept as sent (a rank "5" and a rank 5 may differ). */
  'stringOrInteger',
  'integerArray',
  'stringArray',
  /** "array of string, or string". */
  'stringOrStringArray',
  'object',
] as const;
export type ApiFieldType = (typeof FIELD_TYPES)[number];

export type ApiFieldTable = Readonly<Record<string, ApiFieldType>>;

const ACCOUNT: ApiFieldTable = {
  platform_account_id: 'integer',
  title: 'string',
  price: 'integer',
  game: 'string',
  server: 'string',
  description: 'string',
  rank: 'stringOrInteger',
  division: 'stringOrInteger',
  current_rank: 'stringOrInteger',
  current_division: 'stringOrInteger',
  current_lp: 'integer',
  flex_rank: 'stringOrInteger',
  flex_division: 'stringOrInteger',
  flex_lp: 'integer',
  previous_rank: 'stringOrInteger',
  previous_division: 'stringOrInteger',
  previous_lp: 'integer',
  level: 'integer',
  blue_essence: 'integer',
  game_points: 'integer',
  winrate_percent: 'integer',
  champion_count: 'integer',
  skin_count: 'integer',
  champions: 'stringOrStringArray',
  skins: 'stringOrStringArray',
  roles: 'stringOrStringArray',
  in_game_name: 'string',
  image_ids: 'integerArray',
  image_urls: 'stringArray',
  parameters: 'object',
  game_data: 'object',
};

const ITEM: ApiFieldTable = {
  platform_item_id: 'integer',
  title: 'string',
  type: 'string',
  game: 'string',
  server: 'string',
  price: 'integer',
  stock: 'integer',
  description: 'string',
};

const TOP_UP: ApiFieldTable = {
  game: 'string',
  game_name: 'string',
  service_label: 'string',
  offer_key: 'string',
  offer_title: 'string',
  offer_amount: 'number',
  offer_unit: 'string',
  region: 'string',
  platform: 'string',
  price: 'integer',
  currency: 'string',
  stock: 'integer',
  min_quantity: 'integer',
  waiting_time_value: 'integer',
  waiting_time_unit: 'string',
  instructions: 'string',
  image: 'string',
  active: 'boolean',
};

/** Fields beyond id, external_id, status and the timestamps, which RemoteOffer carries by name. */
export const OFFER_FIELDS: Readonly<Record<ResourceKind, ApiFieldTable>> = {
  accounts: ACCOUNT,
  items: ITEM,
  'top-ups': TOP_UP,
};

/**
 * Other names a server echoes a field under, by kind: the marketplace's real server returns a top-up's
 * offer_title, offer_amount, offer_unit and image as title, amount, unit and image_url. Decoding keeps them under
 * the document's name, so a field is one field however it is echoed (and compared on every read).
 */
export const FIELD_ALIASES: Readonly<Record<ResourceKind, Readonly<Record<string, string>>>> = {
  accounts: {},
  items: {},
  'top-ups': { title: 'offer_title', amount: 'offer_amount', unit: 'offer_unit', image_url: 'image' },
};
