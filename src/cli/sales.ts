// offersync sales: the sales seen since a time, oldest first: a table for people, or with --json the JSON lines
// of sold.jsonl's shape, for an inventory script. Read from the state db with PostgreSQL state (replicas share no
// disk), else from sold.jsonl beside it.
import { stateConnection } from '../config/state-connection.ts';
import type { Config } from '../config/config.ts';
import { sellersOf } from '../config/config.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { oneLine } from '../log/terminal-text.ts';
import { KyselyStateStore } from '../state/kysely-state-store.ts';
import { openPostgresStateDatabase } from '../state/postgres-state-database.ts';
import { SellerDirectory } from '../state/seller-directory.ts';
import { fileSalesLedger, salesLedger, seenAtMs } from '../sales/sales-ledger.ts';
import type { SoldEntry } from '../sales/sold-log.ts';
import { EXIT, type Command } from './command.ts';
import { flagCommand } from './flag-command.ts';
import { formatSales } from './format-sales.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, SELLER_OPTION } from './common-flags.ts';
import { pickSellers, servedSellers } from './served-sellers.ts';
import { parseSince } from './since.ts';

const HELP = `Usage: offersync sales --since <duration|date> [--seller <id>] [--json] [flags]

Lists every sale offersync saw since then, oldest first: when it was seen, the offer (kind, external_id, title),
what sold (an account, or units of an item or top-up) and its price; "No sales since ..." when there is none.
With --json, one JSON object per line, as sold.jsonl holds them (kind, external_id, id, status, title, quantity
for units of items and top-ups, sold_at, seen_at), and nothing when there is none. With several sellers and no
--seller, each row or line also names its seller. Read from the state db with a PostgreSQL state
(state.url), else from sold.jsonl (and sold.jsonl.1) beside the sqlite state db.

  --since <when>         a duration back from now (30m, 12h, 7d) or a date (2026-11-20, 2026-11-20T08:00:00Z)
  --seller <id>          only this seller (a removed one too, with PostgreSQL: its history is kept)
  --json                 JSON lines for a script instead of the table

${CONFIG_HELP}

Examples:
  offersync sales --since 24h                                # the last day's sales, as a table
  offersync sales --since 24h --json | my-inventory-update   # the same into an inventory script
  offersync sales --since 2026-11-20 --seller eu-shop
`;

const OPTIONS = {
  ...CONFIG_OPTIONS,
  ...SELLER_OPTION,
  since: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const command: Command = flagCommand({
  name: 'sales',
  options: OPTIONS,
  help: HELP,
  async run({ values }, io) {
    if (values.since === undefined) {
      io.stderr.write(
        'offersync sales: --since is needed: a duration back from now (24h, 7d) or a date (2026-11-20)\n',
      );
      return EXIT.usage;
    }
    const since = parseSince(values.since, Date.now());
    let config: Config;
    try {
      config = loadConfig({ flags: configFlags(values), env: io.env, cwd: io.cwd });
    } catch (err) {
      if (err instanceof ConfigError) {
        io.stderr.write(`offersync sales: ${oneLine(err.message)}\n`);
        return EXIT.usage;
      }
      throw err;
    }
    const lines: { seller: string; entry: SoldEntry }[] = [];
    let several: boolean;
    try {
      if (!config.state.url) {
        const all = sellersOf(config);
        const chosen = values.seller === undefined ? all : all.filter((c) => c.seller === values.seller);
        if (chosen.length === 0)
          throw new ConfigError(
            `no seller '${values.seller}': the configuration has ${all.map((c) => c.seller).join(', ')}`,
          );
        several = chosen.length > 1;
        for (const c of chosen)
          for (const entry of await fileSalesLedger(c.state.path).since(since)) lines.push({ seller: c.seller, entry });
      } else {
        const { database } = await openPostgresStateDatabase(stateConnection(config));
        try {
          // A removed seller keeps its history: --seller reaches it as long as the state db knows it.
          const known =
            values.seller === undefined ? undefined : await new SellerDirectory(database).get(values.seller);
          const ids = known
            ? [known.seller]
            : pickSellers(await servedSellers(config, database, io.env), values.seller).map((s) => s.seller);
          several = ids.length > 1;
          for (const seller of ids) {
            const store = new KyselyStateStore(database, seller);
            for (const entry of await salesLedger(true, '', store).since(since)) lines.push({ seller, entry });
          }
        } finally {
          await database.close();
        }
      }
    } catch (err) {
      if (err instanceof ConfigError) {
        io.stderr.write(`offersync sales: ${oneLine(err.message)}\n`);
        return EXIT.usage;
      }
      throw err;
    }
    lines.sort((a, b) => seenAtMs(a.entry) - seenAtMs(b.entry));
    if (values.json !== true) {
      const rows = lines.map((l) => ({ ...l, seenAt: seenAtMs(l.entry) }));
      io.stdout.write(formatSales(rows, since, several));
      return EXIT.ok;
    }
    // JSON lines are data for a script: written as they are (JSON.stringify escapes every control character).
    io.stdout.write(
      lines.map((l) => `${JSON.stringify(several ? { seller: l.seller, ...l.entry } : l.entry)}\n`).join(''),
    );
    return EXIT.ok;
  },
});
