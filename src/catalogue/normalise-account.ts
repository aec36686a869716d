// An account record (API document 2.1, 2.2, 2.4) to its typed offer, or the problems that keep it out.
// Credentials are kept apart from the fields: sent, never stored or hashed (only their HMAC is).
import { ACCOUNT_FIELDS, CREDENTIAL_FIELDS, PARAMETER_FIELDS } from './account-schema.ts';
import type { AccountCredentials } from './desired-offer.ts';
import type { Locator, RawRecord } from './formats.ts';
import { sortKeys } from './hash.ts';
import type { Normalised, NormalisedAccount } from './normalised-offer.ts';
import { RecordWalker } from './record-walker.ts';

const NESTED = { parameters: PARAMETER_FIELDS, credentials: CREDENTIAL_FIELDS };

export function normaliseAccount(record: RawRecord, file: string, locate?: Locator): Normalised<NormalisedAccount> {
  const w = new RecordWalker('account', ACCOUNT_FIELDS, record, file, locate, NESTED);
  const externalId = w.walk();
  if (externalId === undefined) return w.invalid();
  const credentials = credentialsOf(w);
  return w.valid({
    kind: 'account',
    externalId,
    fields: sortKeys({
      title: w.requiredText('title'),
      price: w.requiredNumber('price'),
      game: w.text('game'),
      server: w.text('server'),
      status: w.text('status'),
      description: w.text('description'),
      current_rank: w.nameOrId('current_rank'),
      current_division: w.nameOrId('current_division'),
      current_lp: w.number('current_lp'),
      flex_rank: w.nameOrId('flex_rank'),
      flex_division: w.nameOrId('flex_division'),
      flex_lp: w.number('flex_lp'),
      previous_rank: w.nameOrId('previous_rank'),
      previous_division: w.nameOrId('previous_division'),
      previous_lp: w.number('previous_lp'),
      level: w.number('level'),
      blue_essence: w.number('blue_essence'),
      game_points: w.number('game_points'),
      winrate_percent: w.number('winrate_percent'),
      champion_count: w.number('champion_count'),
      skin_count: w.number('skin_count'),
      champions: w.strings('champions'),
      skins: w.strings('skins'),
      roles: w.strings('roles'),
      in_game_name: w.text('in_game_name'),
      parameters: w.details('parameters'),
      image_ids: w.numbers('image_ids'),
      image_urls: w.strings('image_urls'),
    }),
    ...(credentials ? { credentials } : {}),
    images: w.imagePaths(),
  });
}

function credentialsOf(w: RecordWalker): AccountCredentials | undefined {
  const c: AccountCredentials = {
    login: w.text('credentials.login'),
    password: w.text('credentials.password'),
    email_login: w.text('credentials.email_login'),
    email_password: w.text('credentials.email_password'),
  };
  return Object.values(c).some((v) => v !== undefined) ? sortKeys(c) : undefined;
}
