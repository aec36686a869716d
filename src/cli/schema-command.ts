// offersync schema: the JSON Schema of each kind's catalogue file (from the zod schemas), printed, or
// written with --write [dir] (default config/schema) as {account,item,topup}.schema.json for editors.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { accountFileSchema } from '../catalogue/account-schema.ts';
import { OFFER_KINDS, type OfferKind } from '../catalogue/desired-offer.ts';
import { itemFileSchema } from '../catalogue/item-schema.ts';
import { topupFileSchema } from '../catalogue/topup-schema.ts';
import type { KindSchema } from '../catalogue/zod-schema.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { flagCommand } from './flag-command.ts';

const HELP = `Usage: offersync schema [--kind account|item|topup] [--write [dir]]

Prints the JSON Schema of catalogue files, one per kind (all three in one JSON object, or --kind).
--write writes them as account.schema.json, item.schema.json and topup.schema.json into dir
(default: config/schema). Point your editor at them, or put "$schema" in a JSON file.

  --kind <kind>   only this kind: account, item or topup
  --write [dir]   write the files instead of printing them

Examples:
  offersync schema --kind account > account.schema.json
  offersync schema --write                     # into config/schema
`;

const SCHEMAS: Readonly<Record<OfferKind, KindSchema>> = {
  account: accountFileSchema,
  item: itemFileSchema,
  topup: topupFileSchema,
};

export function jsonSchemaOf(kind: OfferKind): Record<string, unknown> {
  const schema = z.toJSONSchema(SCHEMAS[kind].file) as Record<string, unknown>;
  return {
    $id: `https://offersync.local/schema/${kind}.schema.json`,
    title: `offersync ${kind} catalogue file`,
    ...schema,
  };
}

const OPTIONS = {
  kind: { type: 'string' },
  write: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const command: Command = flagCommand({
  name: 'schema',
  options: OPTIONS,
  help: HELP,
  positionals: true,
  async run({ values, positionals }, io) {
    const kinds = values.kind === undefined ? OFFER_KINDS : [values.kind];
    for (const k of kinds)
      if (!(OFFER_KINDS as readonly string[]).includes(k))
        throw new UsageError(`--kind must be one of ${OFFER_KINDS.join(', ')}, got '${k}'`);
    if (positionals.length > (values.write ? 1 : 0))
      throw new UsageError(`unexpected argument: ${positionals.join(' ')}`);
    if (values.write) {
      const dir = resolve(io.cwd, positionals[0] ?? 'config/schema');
      await mkdir(dir, { recursive: true });
      for (const k of kinds as OfferKind[]) {
        const path = join(dir, `${k}.schema.json`);
        await writeFile(path, `${JSON.stringify(jsonSchemaOf(k), null, 2)}\n`);
        io.stdout.write(`wrote ${path}\n`);
      }
      return EXIT.ok;
    }
    const out =
      kinds.length === 1
        ? jsonSchemaOf(kinds[0] as OfferKind)
        : Object.fromEntries(OFFER_KINDS.map((k) => [k, jsonSchemaOf(k)]));
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return EXIT.ok;
  },
});
