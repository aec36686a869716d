// An account record (API document 2.1, 2.2, 2.4) to its typed offer, or the problems that keep it out.
// Credentials are kept apart from the fields: sent, never stored or hashed (only their HMAC is).
import { ACCOUNT_FIELDS, CREDENTIAL_FIELDS, PARAMETER_FIELDS } from './account-schema.ts';
import type { AccountCredentials } from './desired-offer.ts';
import type { Locator, RawRecord } from './formats/parsed-file.ts';
import { sortKeys } from './hash.ts';
import type { Normalised, NormalisedAccount } from './normalised-offer.ts';
import type { RecordValues } from './record-values.ts';
import { RecordWalker } from './record-walker.ts';
import type { SharedStrings } from './values.ts';

const NESTED = { parameters: PARAMETER_FIELDS, credentials: CREDENTIAL_FIELDS };

type AccountValues = RecordValues<typeof ACCOUNT_FIELDS, typeof CREDENTIAL_FIELDS>;

export function normaliseAccount(
  record: RawRecord,
  file: string,
  locate?: Locator,
  strings?: SharedStrings,
): Normalised<NormalisedAccount> {
  const w = new RecordWalker('account', ACCOUNT_FIELDS, record, file, locate, NESTED, strings);
  const externalId = w.walk();
  if (externalId === undefined) return w.invalid();
  const v = w.values();
  const credentials = credentialsOf(v);
  return w.valid({
    kind: 'account',
    externalId,
    fields: sortKeys({
      blue_essence: v.number('blue_essence'),
      champion_count: v.number('champion_count'),
      champions: v.strings('champions'),
      current_division: v.nameOrId('current_division'),
      current_lp: v.number('current_lp'),
      current_rank: v.nameOrId('current_rank'),
      description: v.text('description'),
      flex_division: v.nameOrId('flex_division'),
      flex_lp: v.number('flex_lp'),
      flex_rank: v.nameOrId('flex_rank'),
      game: v.text('game'),
      game_points: v.number('game_points'),
      image_ids: v.numbers('image_ids'),
      image_urls: v.strings('image_urls'),
      in_game_name: v.text('in_game_name'),
      level: v.number('level'),
      parameters: v.details('parameters'),
      previous_division: v.nameOrId('previous_division'),
      previous_lp: v.number('previous_lp'),
      previous_rank: v.nameOrId('previous_rank'),
      price: v.requiredNumber('price'),
      roles: v.strings('roles'),
      server: v.text('server'),
      skin_count: v.number('skin_count'),
      skins: v.strings('skins'),
      status: v.text('status'),
      title: v.requiredText('title'),
      winrate_percent: v.number('winrate_percent'),
    }),
    ...(credentials ? { credentials } : {}),
    images: w.imagePaths(),
  });
}

function credentialsOf(v: AccountValues): AccountCredentials | undefined {
  const c: AccountCredentials = {
    email_login: v.text('credentials.email_login'),
    email_password: v.text('credentials.email_password'),
    login: v.text('credentials.login'),
    password: v.text('credentials.password'),
  };
  return Object.values(c).some((v) => v !== undefined) ? sortKeys(c) : undefined;
}
