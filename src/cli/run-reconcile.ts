// What plan, reconcile and demo share: load config, open services, run, print, choose the exit code.
import { EXIT, type CliIO } from './command.ts';
import { loadConfig, type ConfigSources } from '../config/load-config.ts';
import type { Config } from '../config/config.ts';
import { MarketplaceUnreadableError, reconcile, type ReconcileResult } from '../sync/reconciler.ts';
import { LeaseHeldError } from '../state/writer-lease.ts';
import { openServices, type Services } from './services.ts';
import { formatPlan, planToJson } from './format-plan.ts';
import { formatReport } from './format-report.ts';
import { createProgress, noProgress } from './progress.ts';
import { hasChanges } from '../sync/plan.ts';
import { createLogger } from '../log/logger.ts';

export interface RunOptions {
  readonly command: 'plan' | 'reconcile' | 'demo';
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly allowMassArchive: boolean;
  readonly quiet?: boolean;
  /** How long to wait for another instance's writer lease. Default 0. */
  readonly lockTimeoutMs?: number;
}

export async function runReconcile(io: CliIO, sources: ConfigSources | Config, opts: RunOptions): Promise<number> {
  let services: Services;
  try {
    const config = 'baseUrl' in sources ? sources : loadConfig(sources);
    services = openServices(config, { logger: createLogger({ level: config.log.level, destination: io.stderr }) });
  } catch (err) {
    // Config, a client option (empty key, plain http to a remote host) or a state db that cannot open:
    // all a person fixes in the setup, so exit 2 with the message as it is.
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`offersync ${opts.command}: ${message}\n`);
    return EXIT.usage;
  }
  try {
    return await runWith(io, services, opts);
  } finally {
    // The summary is out; webhook notifications still on their way get a little time before the process ends.
    await services.notifier.flush(NOTIFY_FLUSH_MS);
  }
}

/** How long a command waits, after its summary, for webhook notifications still on their way. */
const NOTIFY_FLUSH_MS = 15_000;

async function runWith(io: CliIO, services: Services, opts: RunOptions): Promise<number> {
  const progress = opts.json || opts.dryRun ? noProgress : createProgress(io.stdout);
  let result: ReconcileResult;
  try {
    result = await reconcile(services.reconcileDeps, {
      command: opts.command,
      dryRun: opts.dryRun,
      allowMassArchive: opts.allowMassArchive,
      lockTimeoutMs: opts.lockTimeoutMs,
      onProgress: (d, t) => progress.update(d, t),
    });
    if (!opts.dryRun) services.notifier.afterRun(result);
  } catch (err) {
    progress.end();
    if (err instanceof LeaseHeldError) {
      io.stderr.write(`offersync ${opts.command}: ${err.message}\n`);
      return EXIT.lockHeld;
    }
    if (err instanceof MarketplaceUnreadableError) {
      if (!opts.dryRun) services.notifier.afterUnreadable(err.message);
      io.stderr.write(`offersync ${opts.command}: ${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  } finally {
    await services.close();
  }
  progress.end();
  const { plan, report } = result;
  if (opts.dryRun) {
    if (opts.json)
      io.stdout.write(`${JSON.stringify({ ...planToJson(plan), catalogue_errors: report.outcomes }, null, 2)}\n`);
    else {
      io.stdout.write(formatPlan(plan));
      for (const o of report.outcomes) io.stdout.write(`  catalogue error ${o.file}: ${o.externalId}: ${o.message}\n`);
    }
    if (plan.guard.tripped) return EXIT.failed;
    return hasChanges(plan) ? EXIT.changesPending : EXIT.ok;
  }
  if (opts.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (!opts.quiet) io.stdout.write(formatReport(report));
  return report.outcome === 'converged' ? EXIT.ok : EXIT.failed;
}
