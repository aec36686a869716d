// offersync daemon: the long-running container mode.
import { EXIT, type Command } from './command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, parseFlags } from './common-flags.ts';
import { loadConfig } from '../config/load-config.ts';
import { createLogger } from '../log/logger.ts';
import { Daemon } from '../daemon/daemon.ts';
import { watchCatalogue } from '../catalogue/watcher.ts';
import { StatusBoard } from '../daemon/status-board.ts';
import { notifySeller, openServices, type Services } from './services.ts';

const HELP = `Usage: offersync daemon [flags]

Reconciles at start (a full sweep), then on every change in the catalogue directory (debounced:
daemon.debounceMs), on an incremental schedule (schedule.tick) and a full sweep (schedule.fullSweep).
Serves a status page for people on / (read-only HTML: runs, failures, catalogue errors, sales, rate), and
/healthz, /readyz and /metrics, on daemon.healthHost:daemon.healthPort. While another offersync holds
the state db's writer lease, it waits (not ready; /readyz says why) and takes over when that lease is released
or expires (state.leaseTtlMs). SIGINT or SIGTERM: no further write is started, those in flight finish, the
lease is let go, exit 0.

${CONFIG_HELP}
`;

/** How long a stopping daemon waits for webhook notifications still on their way. */
const NOTIFY_FLUSH_MS = 5_000;

export const command: Command = {
  name: 'daemon',
  summary: 'reconcile at start, on every catalogue change and on a schedule',
  async run(argv, io) {
    const { values } = parseFlags(argv, CONFIG_OPTIONS);
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    let services: Services;
    try {
      const config = loadConfig({ flags: configFlags(values), env: io.env, cwd: io.cwd });
      services = openServices(config, { logger: createLogger({ level: config.log.level, destination: io.stderr }) });
    } catch (err) {
      io.stderr.write(`offersync daemon: ${(err as Error).message}\n`);
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
      health: { host: config.daemon.healthHost, port: config.daemon.healthPort },
      queueSize: () => services.queue.stats().size,
      clearQueue: () => services.queue.clear(),
      leaseTtlMs: config.state.leaseTtlMs,
      notifier: services.notifier,
      status: {
        board: new StatusBoard(services.store, config.state.path, notifySeller(config)),
        queue: () => services.queue.stats(),
      },
    });
    // A second signal finds no handler left and ends the process at once.
    let stopping: Promise<void> | undefined;
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info({ signal }, 'stopping: no further write is started');
        stopping ??= daemon.stop();
        resolve();
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    try {
      await daemon.start();
    } catch (err) {
      if (!stopping) {
        await services.close();
        throw err;
      }
    }
    if (!stopping) {
      const health = daemon.healthPort
        ? `; health on http://${config.daemon.healthHost}:${daemon.healthPort}/healthz`
        : '';
      io.stderr.write(`offersync daemon: watching ${config.catalogue.dir}${health}\n`);
    }
    await stopped;
    await stopping;
    await services.close();
    await services.notifier.flush(NOTIFY_FLUSH_MS);
    return EXIT.ok;
  },
};
