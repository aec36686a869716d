// offersync sellers add|remove|list: the sellers the daemon replicas serve, changed at run time in the PostgreSQL
// state db. Replicas read the list at every balancing round (leaseTtlMs / 3), so a change runs within one lease
// period, without a restart. The state db keeps where each key is (a file path, a variable's name), never the key.
import { stateConnection } from '../config/state-connection.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { SellerSpecSchema } from '../config/config.ts';
import type { Config } from '../config/config.ts';
import { ConfigError, loadConfig, storedSellerConfig, storedSellersOf } from '../config/load-config.ts';
import { oneLine } from '../log/terminal-text.ts';
import { openPostgresStateDatabase, type PostgresStateDatabase } from '../state/postgres-state-database.ts';
import { ReplicaRegistry, type SellerHolder } from '../state/replica-registry.ts';
import { SellerDirectory, type SellerRecord, type SellerSpec } from '../state/seller-directory.ts';
import { KyselyStateStore } from '../state/kysely-state-store.ts';
import { EXIT, type CliIO, type Command, UsageError } from './command.ts';
import { flagCommand, type ParsedFlags } from './flag-command.ts';
import { configFlags } from './common-flags.ts';

const HELP = `Usage: offersync sellers add <id> --catalogue <dir> (--api-key-file <file> | --api-key-env <name>)
                              [--base-url <url>] [--rate-limit <n>] [--replace]
       offersync sellers remove <id> [--purge]
       offersync sellers list [--json]

The sellers the daemon replicas serve, kept in the PostgreSQL state db (state.url): running replicas pick a
change up within one lease period (state.leaseTtlMs), without a restart. The state db keeps where a seller's
API key is (a file's path, or an environment variable's name), never the key: every replica reads it there.
A seller of the config file's sellers: list is copied into the state db the first time a replica or this
command sees it, and follows the file until this command adds, changes or removes it; from then the state db
is the truth for that seller.

  add <id>               serve a seller: id of lowercase letters, digits and -
    --catalogue <dir>    its catalogue directory (as every replica sees it; a relative path is from here)
    --api-key-file <f>   a file holding its API key (as every replica sees it)
    --api-key-env <name> or an environment variable holding it (set on every replica)
    --base-url <url>     its marketplace, when not the configuration's baseUrl
    --rate-limit <n>     its own rateLimit.ratePerSec (requests per second, or auto)
    --replace            change a seller that exists (without it, add refuses an id already served)
  remove <id>            stop serving it everywhere: its replica stops it and lets go of its lease. Its state
                         and history (offers, runs, sales) stay, and add brings it back as it was
    --purge              also delete its state and history, once no replica holds it any more
  list                   id, catalogue, where the key is, which replica holds it, its last run
    --json               as JSON

Configuration flags:
  --config <file>      config file (env OFFERSYNC_CONFIG); state.url names the PostgreSQL state db
  --state <file>       state db (env OFFERSYNC_STATE_DB): sellers need a PostgreSQL one (state.url)
  --log-level <level>  fatal, error, warn, info, debug, trace (env OFFERSYNC_LOG_LEVEL)

Examples:
  offersync sellers add eu-shop --catalogue /srv/shops/eu --api-key-file /run/secrets/eu-shop-key
  offersync sellers add us-shop --catalogue /srv/shops/us --api-key-env US_SHOP_KEY --rate-limit 5
  offersync sellers list
  offersync sellers remove eu-shop --purge
`;

const OPTIONS = {
  config: { type: 'string' },
  state: { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  catalogue: { type: 'string' },
  'api-key-file': { type: 'string' },
  'api-key-env': { type: 'string' },
  'base-url': { type: 'string' },
  'rate-limit': { type: 'string' },
  replace: { type: 'boolean' },
  purge: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

type Values = ParsedFlags<typeof OPTIONS>['values'];

/** How long `remove --purge` waits for the replica holding the seller to let it go: a round, and the TTL. */
function purgeWaitMs(config: Config): number {
  return config.state.leaseTtlMs * 2;
}

export const command: Command = flagCommand({
  name: 'sellers',
  options: OPTIONS,
  help: HELP,
  positionals: true,
  async run({ values, positionals }, io) {
    const [action, id, ...extra] = positionals;
    if (action !== 'add' && action !== 'remove' && action !== 'list')
      throw new UsageError(
        `expected add, remove or list${action === undefined ? '' : ` (found '${action}')`}: ` +
          'see offersync sellers --help',
      );
    if (action !== 'list' && id === undefined) throw new UsageError(`sellers ${action} needs the seller's id`);
    if (extra.length > 0 || (action === 'list' && id !== undefined))
      throw new UsageError(`unexpected argument '${extra[0] ?? id}': one seller at a time`);
    let config: Config;
    try {
      config = loadConfig({
        flags: configFlags({ config: values.config, state: values.state, 'log-level': values['log-level'] }),
        env: io.env,
        cwd: io.cwd,
      });
    } catch (err) {
      if (err instanceof ConfigError) {
        io.stderr.write(`offersync sellers: ${oneLine(err.message)}\n`);
        return EXIT.usage;
      }
      throw err;
    }
    if (!config.state.url) {
      io.stderr.write(
        'offersync sellers: sellers at run time are kept in a PostgreSQL state db, and this configuration keeps its ' +
          `state in a sqlite file (${oneLine(config.state.path)}). Set state.url to a postgres:// URL (or ` +
          'OFFERSYNC_STATE_URL, or OFFERSYNC_STATE_URL_FILE naming a file that holds it), or list the sellers in ' +
          "the config file's sellers: list.\n",
      );
      return EXIT.usage;
    }
    const { database } = await openPostgresStateDatabase(stateConnection(config));
    try {
      const directory = new SellerDirectory(database);
      // The config file's list first, as a replica's start would: remove and list then see those sellers too.
      await directory.importFromConfig(storedSellersOf(config));
      if (action === 'list') return await list(io, directory, database, values);
      if (action === 'add') return await add(io, config, directory, id ?? '', values);
      return await remove(io, config, directory, database, id ?? '', values);
    } finally {
      await database.close();
    }
  },
});

async function add(io: CliIO, config: Config, directory: SellerDirectory, id: string, values: Values): Promise<number> {
  const idCheck = SellerSpecSchema.shape.id.safeParse(id);
  if (!idCheck.success || id.length > 63)
    throw new UsageError(
      `seller id '${id}': expected 1 to 63 lowercase letters, digits and - (it names the seller in the state db, ` +
        'logs, metrics and URLs)',
    );
  if (!values.catalogue) throw new UsageError('sellers add needs --catalogue <dir>: the seller’s catalogue');
  const keyFile = values['api-key-file'];
  const keyEnv = values['api-key-env'];
  if ((keyFile === undefined) === (keyEnv === undefined))
    throw new UsageError(
      'sellers add needs one of --api-key-file <file> or --api-key-env <name>: where every replica reads the ' +
        "seller's API key (the key itself is never stored)",
    );
  if (keyEnv !== undefined && !SellerSpecSchema.shape.apiKeyEnv.safeParse(keyEnv).success)
    throw new UsageError(`--api-key-env '${keyEnv}': expected an environment variable name such as SHOP_EU_KEY`);
  const overrides: Record<string, unknown> = {};
  if (values['base-url'] !== undefined) overrides.baseUrl = values['base-url'];
  if (values['rate-limit'] !== undefined) {
    const n = values['rate-limit'] === 'auto' ? 'auto' : Number(values['rate-limit']);
    if (n !== 'auto' && !(Number.isFinite(n) && n > 0))
      throw new UsageError(`--rate-limit '${values['rate-limit']}': expected requests per second > 0, or auto`);
    overrides.rateLimit = { ratePerSec: n };
  }
  const spec: SellerSpec = {
    seller: id,
    catalogue: resolve(io.cwd, values.catalogue),
    apiKeyFile: keyFile === undefined ? null : resolve(io.cwd, keyFile),
    apiKeyEnv: keyEnv ?? null,
    overrides,
  };
  // The whole configuration this seller would run with, checked now: a bad --base-url is refused here, not in
  // a replica's log.
  try {
    storedSellerConfig(config, spec, io.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const existing = await directory.get(id);
  if (existing && existing.removedAt === null && !values.replace)
    throw new UsageError(
      `seller '${id}' is served already (catalogue ${existing.catalogue}, key ${keyPlace(existing)}): pass ` +
        '--replace to change it, or remove it first',
    );
  // A replica on another machine may see another disk: what this machine cannot find is told, not refused.
  for (const w of warnings(spec, io.env)) io.stderr.write(`offersync sellers: warning: ${oneLine(w)}\n`);
  const done = await directory.put(spec);
  const within = `running replicas pick it up within one lease period (${config.state.leaseTtlMs / 1000} s)`;
  const what = done === 'updated' ? 'changed' : existing ? 'added again, its state as it was left' : 'added';
  io.stdout.write(
    done === 'unchanged'
      ? `seller ${id}: unchanged (catalogue ${spec.catalogue}, key ${keyPlace(spec)})\n`
      : `seller ${id}: ${what} (catalogue ${spec.catalogue}, key ${keyPlace(spec)}); ${within}\n`,
  );
  return EXIT.ok;
}

function warnings(spec: SellerSpec, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const elsewhere = 'fine if the replicas see another disk, else the seller will not start';
  if (!existsSync(spec.catalogue))
    out.push(`the catalogue ${spec.catalogue} does not exist on this machine (${elsewhere})`);
  else if (!statSync(spec.catalogue).isDirectory()) out.push(`the catalogue ${spec.catalogue} is not a directory`);
  if (spec.apiKeyFile !== null) {
    try {
      if (readFileSync(spec.apiKeyFile, 'utf8').trim() === '') out.push(`the key file ${spec.apiKeyFile} is empty`);
    } catch {
      out.push(`the key file ${spec.apiKeyFile} cannot be read on this machine (${elsewhere})`);
    }
  }
  if (spec.apiKeyEnv !== null && !env[spec.apiKeyEnv]?.trim())
    out.push(`${spec.apiKeyEnv} is not set here: every replica must have it set, or the seller will not start there`);
  return out;
}

async function remove(
  io: CliIO,
  config: Config,
  directory: SellerDirectory,
  database: PostgresStateDatabase,
  id: string,
  values: Values,
): Promise<number> {
  const existing = await directory.get(id);
  if (!existing || (existing.removedAt !== null && !values.purge)) {
    const served = (await directory.list()).map((s) => s.seller);
    io.stderr.write(
      `offersync sellers: no seller '${oneLine(id)}' is served` +
        `${served.length > 0 ? ` (served: ${served.join(', ')})` : ''}; offersync sellers list shows them\n`,
    );
    return EXIT.usage;
  }
  if (existing.removedAt === null) await directory.remove(id);
  io.stdout.write(
    `seller ${id}: removed; the replica running it stops it within one lease period ` +
      `(${config.state.leaseTtlMs / 1000} s) and lets go of its lease` +
      (values.purge
        ? ''
        : '. Its state and history are kept: sellers add brings it back as it was, --purge deletes them') +
      '\n',
  );
  if (!values.purge) return EXIT.ok;
  // Its rows are deleted only once no replica runs it: a daemon still running would write them again.
  const registry = new ReplicaRegistry(database);
  const end = Date.now() + purgeWaitMs(config);
  let holder: SellerHolder | undefined;
  for (;;) {
    holder = (await registry.holders([id])).find((h) => h.live);
    if (!holder || Date.now() > end) break;
    await new Promise((r) => setTimeout(r, Math.min(500, config.state.leaseTtlMs / 6)));
  }
  if (holder) {
    io.stderr.write(
      `offersync sellers: seller ${id} is still held by replica ${holder.holder} (pid ${holder.pid} on ` +
        `${holder.hostname}): nothing was purged. Run offersync sellers remove ${id} --purge again once it let go.\n`,
    );
    return EXIT.failed;
  }
  const deleted = await directory.purge(id);
  const total = Object.values(deleted).reduce((a, b) => a + b, 0);
  io.stdout.write(
    `seller ${id}: state and history purged (${total} rows: ${Object.entries(deleted)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${n} ${t}`)
      .join(', ')})\n`,
  );
  return EXIT.ok;
}

function keyPlace(s: Pick<SellerSpec, 'apiKeyFile' | 'apiKeyEnv'>): string {
  return s.apiKeyFile !== null ? `file ${s.apiKeyFile}` : s.apiKeyEnv !== null ? `env ${s.apiKeyEnv}` : 'none';
}

async function list(
  io: CliIO,
  directory: SellerDirectory,
  database: PostgresStateDatabase,
  values: Values,
): Promise<number> {
  const sellers = await directory.list();
  const holders = new Map(
    (await new ReplicaRegistry(database).holders(sellers.map((s) => s.seller))).map((h) => [h.seller, h]),
  );
  const rows = await Promise.all(
    sellers.map(async (s: SellerRecord) => {
      const [run] = await new KyselyStateStore(database, s.seller).listRuns(1);
      const h = holders.get(s.seller);
      return {
        seller: s.seller,
        catalogue: s.catalogue,
        api_key_file: s.apiKeyFile,
        api_key_env: s.apiKeyEnv,
        overrides: s.overrides,
        origin: s.origin,
        held_by: h?.live ? { replica: h.holder, host: h.hostname, pid: h.pid } : null,
        last_run: run
          ? { id: run.id, started_at: new Date(run.startedAt).toISOString(), outcome: run.outcome ?? 'running' }
          : null,
      };
    }),
  );
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ sellers: rows }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stdout.write('No seller yet: offersync sellers add <id> --catalogue <dir> --api-key-file <file>\n');
    return EXIT.ok;
  }
  const table = [
    ['SELLER', 'CATALOGUE', 'KEY', 'HELD BY', 'LAST RUN'],
    ...rows.map((r) => [
      r.seller,
      r.catalogue,
      keyPlace({ apiKeyFile: r.api_key_file, apiKeyEnv: r.api_key_env }),
      r.held_by ? `${r.held_by.replica.slice(0, 8)} (${r.held_by.host}, pid ${r.held_by.pid})` : 'nobody',
      r.last_run ? `${r.last_run.started_at} ${r.last_run.outcome}` : 'none yet',
    ]),
  ];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((r) => r[i]?.length ?? 0))) ?? [];
  io.stdout.write(
    `${table.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n')}\n`,
  );
  return EXIT.ok;
}
