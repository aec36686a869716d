// Which sellers a configuration serves. With a sqlite state: its `sellers:` list (or itself, the seller
// 'default'). With PostgreSQL: the sellers in the state db (`offersync sellers add`), and those of the config file's
// list. The rule between the two (docs/operations.md, Many sellers): a seller of the file that the state db does
// not know is served as the file says, and copied into the state db when a daemon starts; one the file still
// describes as the state db holds it (origin 'config') follows the file; one a `sellers` command added, changed
// or removed is as that command left it, whatever the file says.
import { stateConnection } from '../config/state-connection.ts';
import type { Config } from '../config/config.ts';
import { ConfigError, type StoredSeller, storedSellerConfig, storedSellersOf } from '../config/load-config.ts';
import { openPostgresStateDatabase, type PostgresStateDatabase } from '../state/postgres-state-database.ts';
import { SellerDirectory, type SellerRecord } from '../state/seller-directory.ts';

export interface ServedSeller {
  readonly seller: string;
  /** Changes when what defines the seller does: a replica running it restarts it. */
  readonly revision: string;
  /** Its configuration, its key read now; throws a ConfigError naming what to fix. */
  configure(): Config;
}

/** The sellers of the file and of the state db, merged by the rule above (pure: nothing is written). */
export function mergeSellers(config: Config, stored: readonly SellerRecord[], env: NodeJS.ProcessEnv): ServedSeller[] {
  const fromFile = storedSellersOf(config);
  const byId = new Map(stored.map((s) => [s.seller, s]));
  const out: ServedSeller[] = [];
  const fileSeller = (spec: StoredSeller): ServedSeller => {
    const built = config.sellerConfigs.find((c) => c.seller === spec.seller);
    return { seller: spec.seller, revision: revision(spec), configure: () => built ?? configureStored(spec) };
  };
  const configureStored = (spec: StoredSeller) => storedSellerConfig(config, spec, env);
  for (const spec of fromFile) {
    const row = byId.get(spec.seller);
    if (!row || (row.origin === 'config' && row.removedAt === null)) out.push(fileSeller(spec));
  }
  for (const row of stored) {
    if (row.removedAt !== null || fromFile.some((f) => f.seller === row.seller && row.origin === 'config')) continue;
    out.push({ seller: row.seller, revision: revision(row), configure: () => configureStored(row) });
  }
  // Without a sellers: list, the configuration is itself a seller ('default') when it has a key of its own, or
  // when nothing else is served (it then fails naming the missing key, as it always did).
  if (config.sellerConfigs.length === 0 && (config.apiKey !== '' || out.length === 0))
    out.unshift({ seller: config.seller, revision: 'default', configure: () => config });
  return out;
}

function revision(s: StoredSeller): string {
  return JSON.stringify([s.catalogue, s.apiKeyFile, s.apiKeyEnv, s.overrides]);
}

/** The sellers served now: read from the state db with PostgreSQL, from the configuration alone with sqlite. */
export async function servedSellers(
  config: Config,
  database: PostgresStateDatabase | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ServedSeller[]> {
  const stored = database ? await new SellerDirectory(database).list({ removed: true }) : [];
  return mergeSellers(config, stored, env);
}

/** `--seller ID` among the served sellers, or every one of them. */
export function pickSellers(served: readonly ServedSeller[], seller: string | undefined): ServedSeller[] {
  if (seller === undefined) return [...served];
  const one = served.find((s) => s.seller === seller);
  if (!one)
    throw new ConfigError(
      `no seller '${seller}': ${
        served.length === 0 ? 'none is configured' : `the configuration has ${served.map((s) => s.seller).join(', ')}`
      }`,
    );
  return [one];
}

/**
 * The configurations a command runs for (plan, reconcile, status, pull): every served seller, or the one --seller
 * names. With PostgreSQL the state db is asked which sellers it serves (`offersync sellers add`).
 */
export async function chooseServedSellers(
  config: Config,
  seller: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Config[]> {
  if (!config.state.url) return pickSellers(mergeSellers(config, [], env), seller).map((s) => s.configure());
  const { database } = await openPostgresStateDatabase(stateConnection(config));
  try {
    return pickSellers(await servedSellers(config, database, env), seller).map((s) => s.configure());
  } finally {
    await database.close();
  }
}
