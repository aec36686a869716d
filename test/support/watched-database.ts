// A real StateDatabase whose statements a test can watch, or act between (another replica's connection doing
// its part at the exact moment a race needs): a kysely plugin on the same connection. Nothing is faked; the
// store under test runs every statement on the real database.
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  UnknownRow,
} from 'kysely';
import type { StateDatabase } from '../../src/state/state-database.ts';

export interface StatementWatch {
  /** Called as each statement is compiled, before it runs. */
  readonly before?: (args: PluginTransformQueryArgs) => void;
  /** Called with each statement's answer, before the store sees it. */
  readonly after?: (args: PluginTransformResultArgs) => Promise<void>;
}

export function watchedDatabase(database: StateDatabase, watch: StatementWatch): StateDatabase {
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      watch.before?.(args);
      return args.node;
    },
    async transformResult(args): Promise<QueryResult<UnknownRow>> {
      await watch.after?.(args);
      return args.result;
    },
  };
  return {
    dialect: database.dialect,
    db: database.db.withPlugin(plugin),
    where: database.where,
    clock: (now) => database.clock(now),
    offerView: (seller) => database.offerView(seller),
    // The hot writes (hot-ops.ts) are not kysely's: they go unwatched.
    hot: database.hot,
    close: () => database.close(),
  };
}
