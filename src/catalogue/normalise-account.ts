// An account record (API document 2.1, 2.2, 2.4) to its typed offer, or the problems that keep it out.
// Credentials are kept apart from the fields: sent, never stored or hashed (only their HMAC is).
import { ACCOUNT_FIELDS, CREDENTIAL_FIELDS, PARAMETER_FIELDS } from './account-schema.ts';
import type { AccountCredentials } from './desired-offer.ts';
import type { Locator, RawRecord } from './formats/parsed-file.ts';
import { sortKeys } from './hash.ts';
import type { Normalised, NormalisedAccount } from './normalised-offer.ts';
import { RecordWalker } from './record-walker.ts';
import type { SharedStrings } from './values.ts';

const NESTED = { parameters: PARAMETER_FIELDS, credentials: CREDENTIAL_FIELDS };

export function normaliseAccount(
  record: RawRecord,
  file: string,
  locate?: Locator,
  strings?: SharedStrings,
): Normalised<NormalisedAccount> {
  const w = new RecordWalker('account', ACCOUNT_FIELDS, record, file, locate, NESTED, strings);
  const externalId = w.walk();
  if (externalId === undefined) return w.invalid();
  const credentials = credentialsOf(w);
  return w.valid({
    kind: 'account',
    externalId,
    fields: sortKeys({
      blue_essence: w.number('blue_essence'),
      champion_count: w.number('champion_count'),
      champions: w.strings('champions'),
      current_division: w.nameOrId('current_division'),
      current_lp: w.number('current_lp'),
      current_rank: w.nameOrId('current_rank'),
      description: w.text('description'),
      flex_division: w.nameOrId('flex_division'),
      flex_lp: w.number('flex_lp'),
      flex_rank: w.nameOrId('flex_rank'),
      game: w.text('game'),
      game_points: w.number('game_points'),
      image_ids: w.numbers('image_ids'),
      image_urls: w.strings('image_urls'),
      in_game_name: w.text('in_game_name'),
      level: w.number('level'),
      parameters: w.details('parameters'),
      previous_division: w.nameOrId('previous_division'),
      previous_lp: w.number('previous_lp'),
      previous_rank: w.nameOrId('previous_rank'),
      price: w.requiredNumber('price'),
      roles: w.strings('roles'),
      server: w.text('server'),
      skin_count: w.number('skin_count'),
      skins: w.strings('skins'),
      status: w.text('status'),
      title: w.requiredText('title'),
      winrate_percent: w.number('winrate_percent'),
    }),
    ...(credentials ? { credentials } : {}),
    images: w.imagePaths(),
  });
}

function credentialsOf(w: RecordWalker): AccountCredentials | undefined {
  const c: AccountCredentials = {
    email_login: w.text('credentials.email_login'),
    email_password: w.text('credentials.email_password'),
    login: w.text('credentials.login'),
    password: w.text('credentials.password'),
  };
  return Object.values(c).some((v) => v !== undefined) ? sortKeys(c) : undefined;
}
