// offersync daemon: the long-running container mode.
import { EXIT, type Command } from './command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, parseFlags } from './common-flags.ts';
import { loadConfig } from '../config/load-config.ts';
import { createLogger } from '../log/logger.ts';
import { Daemon } from '../daemon/daemon.ts';
import { watchCatalogue } from '../catalogue/watcher.ts';
import { LeaseHeldError } from '../sync/reconciler.ts';
import { openServices } from './services.ts';

const HELP = `Usage: offersync daemon [flags]

Reconciles at start (a full sweep), then on every change in the catalogue directory (debounced:
daemon.debounceMs), on an incremental schedule (schedule.tick) and a full sweep (schedule.fullSweep).
Serves /healthz, /readyz and /metrics on daemon.healthHost:daemon.healthPort. SIGINT or SIGTERM lets the
current run finish, then exits 0.

${CONFIG_HELP}
`;

export const command: Command = {
  name: 'daemon',
  summary: 'reconcile at start, on every catalogue change and on a schedule',
  async run(argv, io) {
    const { values } = parseFlags(argv, CONFIG_OPTIONS);
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    let services;
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
    });
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info({ signal }, 'stopping: the current run finishes first');
        resolve();
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    try {
      await daemon.start();
    } catch (err) {
      await services.close();
      if (err instanceof LeaseHeldError) {
        io.stderr.write(`offersync daemon: ${err.message}\n`);
        return EXIT.failed;
      }
      throw err;
    }
    io.stderr.write(
      `offersync daemon: watching ${config.catalogue.dir}${daemon.healthPort ? `; health on http://${config.daemon.healthHost}:${daemon.healthPort}/healthz` : ''}\n`,
    );
    await stopped;
    await daemon.stop();
    await services.close();
    return EXIT.ok;
  },
};
