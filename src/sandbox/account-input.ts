// The account create/update body (2.1, 2.2) turned into stored fields: aliases resolved (rank/division,
// game_data, ign, top-level login/password), prices in cents, ranks in one form, image_ids checked
// against the gallery. Explicit top-level fields win over what parameters map.
import {
  checkFields,
  checkStringList,
  checkValue,
  isPlainObject,
  requireFields,
  type Body,
  type Rule,
} from './field-rules.ts';
import { Validation } from './http-error.ts';
import { parseImageIds } from './image-ids.ts';
import { parsePriceCents } from './price-rules.ts';
import { parseDivision, parseRank } from './ranks.ts';

/** Statuses a seller may set; processing, sold and refunded are the marketplace's. */
export const ACCOUNT_WRITABLE_STATUSES = ['draft', 'pending', 'listed', 'archived'] as const;

const count = { type: 'int', min: 0 } as const satisfies Rule;

const RULES: Readonly<Record<string, Rule>> = {
  external_id: { type: 'string', required: true },
  title: { type: 'string', required: true },
  status: { type: 'enum', values: ACCOUNT_WRITABLE_STATUSES },
  description: { type: 'string' },
  game: { type: 'string' },
  server: { type: 'string' },
  in_game_name: { type: 'string' },
  current_lp: count,
  flex_lp: count,
  previous_lp: count,
  level: count,
  blue_essence: count,
  game_points: count,
  winrate_percent: { type: 'int', min: 0, max: 100 },
  champion_count: count,
  skin_count: count,
};

/** Integer keys of parameters mapped onto the public field of the same name. */
const PARAM_INTS = ['level', 'blue_essence', 'game_points', 'winrate_percent', 'champion_count', 'skin_count'] as const;

const CREDENTIAL_KEYS = ['login', 'password', 'email_login', 'email_password'] as const;

/** Every stored account field with its value on a fresh create. */
const ACCOUNT_DEFAULTS: Readonly<Record<string, unknown>> = {
  description: null,
  game: null,
  server: null,
  in_game_name: null,
  current_rank: null,
  current_division: null,
  current_lp: null,
  flex_rank: null,
  flex_division: null,
  flex_lp: null,
  previous_rank: null,
  previous_division: null,
  previous_lp: null,
  level: null,
  blue_essence: null,
  game_points: null,
  winrate_percent: null,
  champion_count: null,
  skin_count: null,
  champions: null,
  skins: null,
  roles: null,
  image_ids: [],
  image_urls: [],
  parameters: null,
  credentials: null,
};

export interface AccountInput {
  readonly external_id?: string;
  readonly status?: string;
  readonly fields: Record<string, unknown>;
}

const present = (body: Body, key: string): boolean => body[key] !== undefined;

function readParameters(
  body: Body,
  v: Validation,
): { merged: Record<string, unknown> | null; source: (k: string) => string } | undefined {
  const given = (['game_data', 'parameters'] as const).filter((k) => present(body, k));
  if (given.length === 0) return undefined;
  let merged: Record<string, unknown> | null = null;
  for (const k of given) {
    const val = body[k];
    if (val === null) continue;
    if (!isPlainObject(val)) {
      v.add(k, `The ${k} field must be an object.`);
      continue;
    }
    merged = { ...(merged ?? {}), ...structuredClone(val) }; // parameters (read last) wins over game_data
  }
  const params = isPlainObject(body.parameters) ? body.parameters : {};
  return { merged, source: (key) => (key in params ? `parameters.${key}` : `game_data.${key}`) };
}

function readRank(
  prefix: 'current' | 'flex' | 'previous',
  body: Body,
  params: Record<string, unknown> | null,
  paramSource: (k: string) => string,
  out: Record<string, unknown>,
  v: Validation,
): void {
  const rankKeys = prefix === 'current' ? ['current_rank', 'rank'] : [`${prefix}_rank`];
  const divKeys = prefix === 'current' ? ['current_division', 'division'] : [`${prefix}_division`];
  const paramRankKey = prefix === 'current' ? 'rank' : `${prefix}_rank`;
  const paramDivKey = prefix === 'current' ? 'division' : `${prefix}_division`;
  const pick = (keys: string[], paramKey: string): [string, unknown] | undefined => {
    const k = keys.find((key) => present(body, key));
    if (k) return [k, body[k]];
    if (prefix !== 'previous' && params && params[paramKey] !== undefined)
      return [paramSource(paramKey), params[paramKey]];
    return undefined;
  };
  const rank = pick(rankKeys, paramRankKey);
  if (rank) {
    const [field, value] = rank;
    if (value === null) {
      out[`${prefix}_rank`] = null;
      out[`${prefix}_division`] = null;
    } else {
      const parsed = parseRank(value);
      if (!parsed)
        v.add(
          field,
          `The ${field} field must be a rank name (iron ... challenger), a rank id 1-10, or a rank with a division ` +
            `such as "gold II" or "gold_2", got ${JSON.stringify(value)}.`,
        );
      else {
        out[`${prefix}_rank`] = parsed.rank;
        if (parsed.division) out[`${prefix}_division`] = parsed.division;
      }
    }
  }
  const div = pick(divKeys, paramDivKey);
  if (div) {
    const [field, value] = div;
    if (value === null) out[`${prefix}_division`] = null;
    else {
      const parsed = parseDivision(value);
      if (!parsed)
        v.add(field, `The ${field} field must be a division I, II, III, IV or 1-4, got ${JSON.stringify(value)}.`);
      else out[`${prefix}_division`] = parsed;
    }
  }
}

function readCredentials(body: Body, previous: unknown, v: Validation): Record<string, unknown> | null | undefined {
  const top: Record<string, unknown> = {};
  for (const k of ['login', 'password'] as const) {
    if (!present(body, k)) continue;
    const val = checkValue(k, body[k], { type: 'string' }, v);
    if (val !== undefined) top[k] = val;
  }
  if (!present(body, 'credentials') && Object.keys(top).length === 0) return undefined;
  if (body.credentials === null && Object.keys(top).length === 0) return null;
  const given: Record<string, unknown> = {};
  if (present(body, 'credentials') && body.credentials !== null) {
    if (!isPlainObject(body.credentials)) {
      v.add(
        'credentials',
        'The credentials field must be an object with login, password, email_login, email_password.',
      );
      return undefined;
    }
    for (const k of CREDENTIAL_KEYS) {
      if (!present(body.credentials, k)) continue;
      const val = checkValue(`credentials.${k}`, body.credentials[k], { type: 'string' }, v);
      if (val !== undefined) given[k] = val;
    }
  }
  // A PATCH changes the credentials it names and keeps the others.
  const base = isPlainObject(previous) ? previous : {};
  return { ...base, ...top, ...given };
}

export function readAccountInput(
  body: Body,
  mode: 'create' | 'update',
  imageExists: (id: number) => boolean,
  previous?: Readonly<Record<string, unknown>>,
): AccountInput {
  const v = new Validation();
  if (mode === 'create') requireFields(body, ['external_id', 'title', 'price'], v);
  const { external_id, status, ...simple } = checkFields(body, RULES, v);
  const fields: Record<string, unknown> = mode === 'create' ? { ...ACCOUNT_DEFAULTS } : {};

  if (present(body, 'price')) {
    const cents = parsePriceCents(body.price);
    if (body.price === null) v.add('price', 'The price field is required.');
    else if (cents === undefined)
      v.add(
        'price',
        `The price field must be integer cents, a decimal number or a decimal string such as "19.99", got ` +
          `${JSON.stringify(body.price)}.`,
      );
    else if (cents <= 0) v.add('price', 'The price field must be greater than 0.');
    else fields.price = cents;
  }
  if (!present(body, 'in_game_name') && present(body, 'ign')) {
    const ign = checkValue('ign', body.ign, { type: 'string' }, v);
    if (ign !== undefined) fields.in_game_name = ign;
  }

  const params = readParameters(body, v);
  if (params) {
    fields.parameters = params.merged;
    for (const key of PARAM_INTS) {
      const val = params.merged?.[key];
      if (val === undefined || present(body, key)) continue;
      const checked = checkValue(params.source(key), val, RULES[key]!, v);
      if (checked !== undefined) fields[key] = checked;
    }
  }
  for (const prefix of ['current', 'flex', 'previous'] as const)
    readRank(prefix, body, params?.merged ?? null, params?.source ?? String, fields, v);
  Object.assign(fields, simple);

  for (const key of ['champions', 'skins', 'roles'] as const) {
    if (!present(body, key)) continue;
    const list = checkStringList(key, body[key], v);
    if (list !== undefined) fields[key] = list;
  }
  if (present(body, 'image_ids')) {
    const ids = body.image_ids === null ? [] : parseImageIds(body.image_ids);
    if (ids === undefined)
      v.add(
        'image_ids',
        'The image_ids field must be an array of integers, a comma-separated string of integers, or an array of ' +
          'objects with an integer id or image_id.',
      );
    else {
      const unknown = ids.filter((id) => !imageExists(id));
      if (unknown.length > 0)
        v.add(
          'image_ids',
          `Unknown image id${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: upload through POST ` +
            `/api/v1/images first.`,
        );
      else fields.image_ids = ids;
    }
  }
  if (present(body, 'image_urls')) {
    const urls = body.image_urls;
    if (urls === null) fields.image_urls = [];
    else if (Array.isArray(urls) && urls.every((u) => typeof u === 'string')) fields.image_urls = [...urls];
    else v.add('image_urls', 'The image_urls field must be an array of strings.');
  }
  const credentials = readCredentials(body, previous?.credentials, v);
  if (credentials !== undefined) fields.credentials = credentials;

  v.throwIfAny();
  const out: { external_id?: string; status?: string; fields: Record<string, unknown> } = { fields };
  if (typeof external_id === 'string') out.external_id = external_id;
  if (typeof status === 'string') out.status = status;
  else if (mode === 'create') out.status = 'draft';
  return out;
}
