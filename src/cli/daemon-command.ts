// offersync daemon: the long-running container mode.
import { stateConnection } from '../config/state-connection.ts';
import { stateDbShownAs } from '../state/state-db-fault.ts';
import { oneLine } from '../log/terminal-text.ts';
import { EXIT, type CliIO, type Command } from './command.ts';
import { flagCommand } from './flag-command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags } from './common-flags.ts';
import type { Config } from '../config/config.ts';
import { loadConfig } from '../config/load-config.ts';
import { Replica } from '../daemon/replica.ts';
import { openPostgresStateDatabase } from '../state/postgres-state-database.ts';
import { ReplicaRegistry } from '../state/replica-registry.ts';
import { cliLogger } from './cli-logger.ts';
import { Daemon } from '../daemon/daemon.ts';
import type { HealthServerOptions } from '../daemon/health-server.ts';
import { DaemonMetrics, type MetricsScope } from '../daemon/metrics.ts';
import { watchCatalogue } from '../catalogue/watcher.ts';
import { StatusBoard } from '../status/status-board.ts';
import { openServices, openStore, statusSeller, type Services } from './services.ts';
import { silentLogger } from '../log/logger.ts';
import { storedSellersOf } from '../config/load-config.ts';
import { SellerDirectory } from '../state/seller-directory.ts';
import { salesLedger } from '../sales/sales-ledger.ts';
import { type ServedSeller, servedSellers } from './served-sellers.ts';
import { setupProblem } from './preflight.ts';
import { holdUntilStopSignal } from './signals.ts';

const HELP = `Usage: offersync daemon [flags]

Reconciles at start (a full sweep), then on every change in the catalogue directory (debounced:
daemon.debounceMs), on an incremental schedule (schedule.tick) and a full sweep (schedule.fullSweep).
Serves a status page for people on / (read-only HTML: runs, failures, catalogue errors, sales, rate), and
/healthz, /readyz and /metrics, on daemon.healthHost:daemon.healthPort. While another offersync holds
the state db's writer lease, it waits (not ready; /readyz says why) and takes over when that lease is released
or expires (state.leaseTtlMs). SIGINT, SIGTERM or SIGHUP: no further write is started, those in flight finish, the
lease is let go, exit 0.
With a sellers: list or a PostgreSQL state (state.url), one daemon per seller runs in this process; with
PostgreSQL, every replica started on the same database takes a fair share of the sellers, and takes over those
of a replica that stopped renewing its leases; the sellers are those of the state db (offersync sellers add,
remove), the config file's sellers: list copied into it at start. /readyz then lists each seller and which
replica holds it, / is the fleet page (every seller: who holds it, last run, held and failed offers, sales
today) and /sellers/ID each seller's status page.

${CONFIG_HELP}

Examples:
  offersync daemon --catalogue ./catalogue     # status page on http://127.0.0.1:9464/
  OFFERSYNC_DAEMON_HEALTHPORT=8080 offersync daemon
  offersync reconcile                          # beside it: asks it to sync now and prints that run
`;

function healthOptions(config: Config): HealthServerOptions {
  const { healthHost, healthPort, allowedHosts } = config.daemon;
  return { host: healthHost, port: healthPort, allowedHosts };
}

/** How long a stopping daemon waits for webhook notifications still on their way. */
const NOTIFY_FLUSH_MS = 5_000;

const OPTIONS = CONFIG_OPTIONS;

/** The status page's address as a person opens it on this machine: a wildcard host is reached on loopback. */
export function pageUrl(host: string, port: number): string {
  const shown =
    host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}/`;
}

export const command: Command = flagCommand({
  name: 'daemon',
  options: OPTIONS,
  help: HELP,
  async run({ values }, io) {
    const metrics = new DaemonMetrics();
    let metricsScope: MetricsScope;
    let services: Services;
    try {
      const config = loadConfig({ flags: configFlags(values), env: io.env, cwd: io.cwd });
      // Several sellers, or a state in PostgreSQL (replicas may share it): one Daemon per seller, under a Replica.
      if (config.sellerConfigs.length > 0 || config.state.url) return await runReplica(config, io);
      // Every series carries its seller, as with many sellers ('default' here).
      metricsScope = metrics.scope({ seller: config.seller });
      const problem = setupProblem(config);
      if (problem) throw new Error(problem);
      services = await openServices(config, {
        logger: cliLogger(config, io),
        observe: metricsScope,
      });
    } catch (err) {
      io.stderr.write(`offersync daemon: ${oneLine((err as Error).message)}\n`);
      return EXIT.usage;
    }
    const { config, logger } = services;
    const daemon = new Daemon({
      deps: services.reconcileDeps,
      store: services.store,
      catalogue: services.catalogue,
      watch: () => watchCatalogue(config.catalogue.dir, { debounceMs: config.daemon.debounceMs, logger }),
      logger,
      fullSweep: config.schedule.fullSweep,
      tick: config.schedule.tick,
      health: healthOptions(config),
      queueStats: () => services.queue.stats(),
      metrics,
      metricsScope,
      clearQueue: () => services.queue.close(),
      leaseTtlMs: config.state.leaseTtlMs,
      stateDbShownAs: stateDbShownAs(config.state),
      notifier: services.notifier,
      status: {
        board: new StatusBoard(services.store, services.sales, statusSeller(config)),
        queue: () => services.queue.stats(),
        notices: services.notices,
      },
    });
    // A second signal ends the process at once (signals.ts).
    let stopping: Promise<void> | undefined;
    const wait = holdUntilStopSignal((signal) => {
      logger.info({ signal }, 'stopping: no further write is started; a second signal exits at once');
      stopping ??= daemon.stop();
    });
    try {
      await daemon.start();
    } catch (err) {
      if (!stopping) {
        wait.release();
        await services.close();
        throw err;
      }
    }
    if (!stopping) {
      const health = daemon.healthPort
        ? `; status page on ${pageUrl(config.daemon.healthHost, daemon.healthPort)} (/healthz, /readyz, /metrics)`
        : '';
      // Through the logger, so a JSON log holds JSON only; on a terminal it reads as a line.
      // The setup's warnings (plain http) were logged once when the services opened.
      logger.info({ catalogue: config.catalogue.dir }, `watching ${oneLine(config.catalogue.dir)}${health}`);
    }
    await wait.stopped;
    await stopping;
    await services.close();
    await services.notifier.flush(NOTIFY_FLUSH_MS);
    return EXIT.ok;
  },
});

async function runReplica(config: Config, io: CliIO): Promise<number> {
  const logger = cliLogger(config, io);
  const database = config.state.url
    ? (await openPostgresStateDatabase(stateConnection(config), logger)).database
    : undefined;
  if (database) {
    // The config file's sellers: list into the state db, where `offersync sellers` changes it (served-sellers.ts).
    const imported = await new SellerDirectory(database).importFromConfig(
      storedSellersOf(config).map((s) => ({ ...s })),
    );
    if (imported.added.length + imported.updated.length > 0)
      logger.info(imported, "the config file's sellers copied into the state db");
  }
  // The sellers as the last round read them: a seller opens on the configuration it was listed with.
  let served = new Map<string, ServedSeller>();
  const replica = new Replica({
    sellers: async () => {
      const list = await servedSellers(config, database, io.env);
      served = new Map(list.map((s) => [s.seller, s]));
      return list.map((s) => ({ seller: s.seller, revision: s.revision }));
    },
    registry: database ? new ReplicaRegistry(database) : null,
    logger,
    leaseTtlMs: config.state.leaseTtlMs,
    health: healthOptions(config),
    async readState(seller) {
      const entry = served.get(seller);
      if (!entry) throw new Error(`no seller ${seller}`);
      const sc = entry.configure();
      const store = await openStore(sc, silentLogger, database);
      return { store, sales: salesLedger(sc.state.url !== '', sc.state.path, store), close: () => store.close() };
    },
    async openSeller(seller, claim, metricsScope) {
      const entry = served.get(seller);
      if (!entry) throw new Error(`no seller ${seller}`);
      const sc = entry.configure();
      const services = await openServices(sc, { logger, observe: metricsScope, ...(database ? { database } : {}) });
      const daemon = new Daemon({
        deps: services.reconcileDeps,
        store: services.store,
        catalogue: services.catalogue,
        watch: () => watchCatalogue(sc.catalogue.dir, { debounceMs: sc.daemon.debounceMs, logger: services.logger }),
        logger: services.logger,
        fullSweep: sc.schedule.fullSweep,
        tick: sc.schedule.tick,
        health: null,
        queueStats: () => services.queue.stats(),
        clearQueue: () => services.queue.close(),
        leaseTtlMs: sc.state.leaseTtlMs,
        stateDbShownAs: stateDbShownAs(sc.state),
        leaseClaim: claim,
        notifier: services.notifier,
        // Its page under the replica's fleet page (/sellers/ID).
        status: {
          board: new StatusBoard(services.store, services.sales, statusSeller(sc)),
          queue: () => services.queue.stats(),
          notices: services.notices,
        },
        metrics: replica.metrics,
        metricsScope,
      });
      return {
        daemon,
        tryLease: async (c, ttl) => (await services.store.acquireLease(c, ttl)).ok,
        close: async () => {
          await services.close();
          await services.notifier.flush(NOTIFY_FLUSH_MS);
        },
      };
    },
  });
  const wait = holdUntilStopSignal((signal) => {
    logger.info({ signal }, 'stopping: no further write is started; letting go of every seller');
  });
  try {
    await replica.start();
  } catch (err) {
    wait.release();
    await replica.stop();
    await database?.close();
    throw err;
  }
  logger.info(
    { replica: replica.claim.holder, sellers: served.size },
    `replica ${replica.claim.holder}, ${served.size} seller(s)` +
      `${replica.healthPort ? `; fleet page on http://${config.daemon.healthHost}:${replica.healthPort}/` : ''}`,
  );
  await wait.stopped;
  await replica.stop();
  await database?.close();
  return EXIT.ok;
}
