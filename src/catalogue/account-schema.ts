// Account offer fields (API document 2.1, 2.2, 2.4) and the zod schema of an account catalogue file.
import { EXTERNAL_ID, type FieldTable, fieldTable, GAME, PRICE, SERVER, TITLE } from './field-spec.ts';
import { fileSchemaOf } from './zod-schema.ts';

/** Account statuses (API document section 3). */
export const ACCOUNT_STATUSES = ['draft', 'pending', 'listed', 'processing', 'sold', 'refunded', 'archived'] as const;

const rankText =
  'A rank name (iron ... challenger), a numeric rank id, or rank and division together ("Gold II", "gold_2").';
const divisionText = 'Division I, II, III or IV, or a numeric division id.';

/** The account's figures, taken at the top level of a record and inside parameters alike. */
const ACCOUNT_COUNTS = {
  level: { type: 'int', min: 0, description: 'Account level.' },
  blue_essence: { type: 'int', min: 0, description: 'Blue essence.' },
  game_points: { type: 'int', min: 0, description: 'Game points.' },
  winrate_percent: { type: 'int', min: 0, max: 100, description: 'Win rate, 0 to 100.' },
  champion_count: { type: 'int', min: 0, description: 'Number of champions.' },
  skin_count: { type: 'int', min: 0, description: 'Number of skins.' },
} as const satisfies FieldTable;

export const ACCOUNT_FIELDS = fieldTable({
  external_id: EXTERNAL_ID,
  title: TITLE,
  price: PRICE,
  game: GAME,
  server: SERVER,
  status: {
    type: 'enum',
    values: ACCOUNT_STATUSES,
    description: 'Status to set; left out, the configured default applies.',
  },
  description: { type: 'string', description: 'Description of the listing.' },
  parameters: {
    type: 'parameters',
    description:
      'Account details (rank, flex_rank, level, blue_essence, game_points, winrate_percent, champion_count, ' +
      'skin_count, ...).',
  },
  game_data: { type: 'parameters', target: 'parameters', description: 'Alias of parameters; merged into it.' },
  credentials: {
    type: 'credentials',
    description: 'login, password, email_login, email_password. Sent, never stored.',
  },
  rank: { type: 'rank', target: 'current_rank', description: `Alias of current_rank. ${rankText}` },
  division: { type: 'division', target: 'current_division', description: `Alias of current_division. ${divisionText}` },
  current_rank: { type: 'rank', description: rankText },
  current_division: { type: 'division', description: divisionText },
  current_lp: { type: 'int', min: 0, description: 'League points.' },
  flex_rank: { type: 'rank', description: rankText },
  flex_division: { type: 'division', description: divisionText },
  flex_lp: { type: 'int', min: 0, description: 'League points (flex).' },
  previous_rank: { type: 'rank', description: rankText },
  previous_division: { type: 'division', description: divisionText },
  previous_lp: { type: 'int', min: 0, description: 'League points (previous season).' },
  ...ACCOUNT_COUNTS,
  champions: { type: 'list', description: 'A list, or one comma-separated string (CSV: items separated by |).' },
  skins: { type: 'list', description: 'A list, or one comma-separated string (CSV: items separated by |).' },
  roles: { type: 'list', description: 'A list, or one comma-separated string (CSV: items separated by |).' },
  in_game_name: { type: 'string', distinct: true, description: 'In-game name.' },
  image_ids: {
    type: 'image_ids',
    description: 'Ids of images already uploaded: [1, 2], "1,2", [{id: 1}] or [{image_id: 1}].',
  },
  image_urls: { type: 'urls', description: 'Image URLs.' },
  images: {
    type: 'images',
    description: 'Gallery image files, by path relative to the catalogue directory (images/a.png); uploaded once each.',
  },
  login: {
    type: 'string',
    secret: true,
    legacy: true,
    target: 'credentials.login',
    description: 'Deprecated: write credentials.login.',
  },
  password: {
    type: 'string',
    secret: true,
    legacy: true,
    verbatim: true,
    target: 'credentials.password',
    description: 'Deprecated: write credentials.password.',
  },
  email_login: {
    type: 'string',
    secret: true,
    legacy: true,
    target: 'credentials.email_login',
    description: 'Deprecated: write credentials.email_login.',
  },
  email_password: {
    type: 'string',
    secret: true,
    legacy: true,
    verbatim: true,
    target: 'credentials.email_password',
    description: 'Deprecated: write credentials.email_password.',
  },
  ign: {
    type: 'string',
    legacy: true,
    target: 'in_game_name',
    distinct: true,
    description: 'Deprecated: write in_game_name.',
  },
});

export const CREDENTIAL_FIELDS = fieldTable({
  login: { type: 'string', secret: true, description: 'Account login.' },
  password: {
    type: 'string',
    secret: true,
    verbatim: true,
    description: 'Account password (kept exactly as written).',
  },
  email_login: { type: 'string', secret: true, description: 'Login of the e-mail account.' },
  email_password: {
    type: 'string',
    secret: true,
    verbatim: true,
    description: 'Password of the e-mail account (kept exactly as written).',
  },
});

/** parameters keys the document names, and how they are normalised; other keys pass through. */
export const PARAMETER_FIELDS = fieldTable({
  rank: { type: 'rank', description: rankText },
  flex_rank: { type: 'rank', description: rankText },
  ...ACCOUNT_COUNTS,
});

export const accountFileSchema = fileSchemaOf('account', ACCOUNT_FIELDS, {
  parameters: PARAMETER_FIELDS,
  credentials: CREDENTIAL_FIELDS,
});
