// What plan, reconcile and demo share: load config, open services, run, print, choose the exit code.
import { EXIT, type CliIO } from './command.ts';
import { loadConfig, type ConfigSources } from '../config/load-config.ts';
import type { Config } from '../config/config.ts';
import { MarketplaceUnreadableError, reconcile, type ReconcileResult } from '../sync/reconciler.ts';
import { LeaseHeldError } from '../state/writer-lease.ts';
import { type StateDbFault, stateDbFault, stateDbParagraph, stateDbShownAs } from '../state/state-db-fault.ts';
import { WrongOfferError } from '../sync/execute/wrong-offer-error.ts';
import { scrubSecrets } from '../log/scrubber.ts';
import { oneLine } from '../log/terminal-text.ts';
import { openServices, type Services } from './services.ts';
import { chooseServedSellers } from './served-sellers.ts';
import { setupProblem } from './preflight.ts';
import { syncNowBeside } from './sync-now.ts';
import { formatPlan, planToJson } from './format-plan.ts';
import { planCost } from '../sync/plan/plan-cost.ts';
import { formatReport } from './format-report.ts';
import { createProgress, noProgress, type Progress } from './progress.ts';
import { blindSpots } from '../sync/report/blind-spots.ts';
import { hasChanges, stoppedByGuard } from '../sync/plan/plan-actions.ts';
import { catalogueWarnings } from '../sync/report/catalogue-failures.ts';
import { onStopSignal } from './signals.ts';
import { cliLogger } from './cli-logger.ts';
import type { Target } from '../sync/plan/target.ts';
import {
  differences,
  markApplied,
  type SavedPlan,
  savedPlanKeys,
  savedPlanRefusal,
  savePlan,
  stateIdOf,
} from '../saved-plan/saved-plan.ts';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveTarget, type TargetFlags } from './target-flags.ts';
import { favourSpeedOverMemory, isLargeCatalogue } from './v8-memory.ts';

export interface RunOptions {
  readonly command: 'plan' | 'reconcile' | 'demo';
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly allowMassArchive: boolean;
  /** --allow-price-change. Default false. */
  readonly allowPriceChange?: boolean;
  readonly quiet?: boolean;
  /** How long to wait for another instance's writer lease. Default 0. */
  readonly lockTimeoutMs?: number;
  /** Only this seller of `sellers:` (--seller). Default: every seller, one report each. */
  readonly seller?: string;
  /** A targeted run (--only, --file, --match). */
  readonly target?: TargetFlags;
  /** plan --out: write the plan to this file (a path as given). */
  readonly out?: string;
  /** reconcile --plan: carry out this saved plan, read already. */
  readonly savedPlan?: { readonly path: string; readonly plan: SavedPlan };
}

/** After a stop signal, writes in flight get this long to finish (docker stop waits 10 s before SIGKILL). */
export const STOP_DEADLINE_MS = 8_000;

/** Runs every chosen seller in turn; one seller's failure does not stop the next. Exit: the worst code. */
export async function runReconcile(io: CliIO, sources: ConfigSources | Config, opts: RunOptions): Promise<number> {
  let sellers: readonly Config[];
  try {
    const config = 'baseUrl' in sources ? sources : loadConfig(sources);
    sellers = await chooseServedSellers(config, opts.seller, io.env);
  } catch (err) {
    io.stderr.write(`offersync ${opts.command}: ${oneLine(err instanceof Error ? err.message : String(err))}\n`);
    return EXIT.usage;
  }
  // Before any catalogue is read: a small one is read and synced for the least CPU (v8-memory.ts).
  if (!isLargeCatalogue(sellers.map((s) => s.catalogue.dir))) favourSpeedOverMemory();
  if (sellers.length === 1 && sellers[0]) return runSeller(io, sellers[0], opts);
  if (opts.out || opts.savedPlan) {
    io.stderr.write(`offersync ${opts.command}: a saved plan is of one seller: name it with --seller\n`);
    return EXIT.usage;
  }
  // Several sellers: a heading before each report, or with --json one JSON document per line, each with its seller.
  let worst: number = EXIT.ok;
  for (const [i, seller] of sellers.entries()) {
    if (!opts.json) io.stdout.write(`${i > 0 ? '\n' : ''}== seller ${seller.seller}\n`);
    worst = Math.max(worst, await runSeller(io, seller, opts, true));
  }
  return worst;
}

async function runSeller(io: CliIO, config: Config, opts: RunOptions, jsonLines = false): Promise<number> {
  // On stderr, and only on a terminal: stdout carries the report, the plan or JSON.
  const progress = opts.quiet || opts.json ? noProgress : createProgress(io.stderr);
  let services: Services;
  let target: Target | undefined;
  try {
    const problem = setupProblem(config);
    if (problem) throw new Error(problem);
    target = opts.target ? resolveTarget(opts.target, config.catalogue.dir, io.cwd) : undefined;
    services = await openServices(config, {
      logger: cliLogger(config, io),
      observe: { onResponse: () => progress.marketplaceRequest() },
    });
  } catch (err) {
    // Config, a client option (empty key, plain http to a remote host) or a state db that cannot open:
    // all a person fixes in the setup, so exit 2 with the message as it is.
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`offersync ${opts.command}: ${sellerPrefix(config)}${oneLine(message)}\n`);
    return EXIT.usage;
  }
  // Above the report a person reads (the log has it too); --json keeps stdout for the document.
  if (!opts.json) for (const notice of services.notices) io.stdout.write(`Warning: ${sellerPrefix(config)}${notice}\n`);
  try {
    return await runWith(io, services, { ...opts, resolvedTarget: target }, jsonLines, progress);
  } finally {
    // The summary is out; webhook notifications still on their way get a little time before the process ends.
    await services.notifier.flush(NOTIFY_FLUSH_MS);
  }
}

/** How long a command waits, after its summary, for webhook notifications still on their way. */
const NOTIFY_FLUSH_MS = 15_000;

async function runWith(
  io: CliIO,
  services: Services,
  opts: RunOptions & { readonly resolvedTarget: Target | undefined },
  jsonLines: boolean,
  progress: Progress,
): Promise<number> {
  const config = services.config;
  const json = (doc: object) =>
    jsonLines ? `${JSON.stringify({ seller: config.seller, ...doc })}\n` : `${JSON.stringify(doc, null, 2)}\n`;
  const store = services.store;
  const here = {
    stateId: opts.out || opts.savedPlan ? await stateIdOf(store) : '',
    marketplace: new URL(config.baseUrl).origin,
    seller: config.seller,
  };
  const saved = opts.savedPlan?.plan;
  if (saved) {
    const refusal = await savedPlanRefusal(saved, here, store);
    if (refusal) {
      await services.close();
      io.stderr.write(`offersync reconcile: ${oneLine(`${opts.savedPlan!.path}: ${refusal}`)}. Nothing was sent.\n`);
      return EXIT.failed;
    }
  }
  const { stop, unregister } = listenForStop(io, opts.command, services);
  let result: ReconcileResult;
  let stateFault: StateDbFault | undefined;
  /** The queue's rate once the lists are read (learnt, configured or advertised): what a plan's cost is told at. */
  let rate = 0;
  try {
    const catalogue = services.catalogue;
    const deps = {
      ...services.reconcileDeps,
      loadCatalogue: () => catalogue.load((d, t) => progress.catalogueFiles(d, t)),
    };
    result = await reconcile(deps, {
      command: opts.command,
      dryRun: opts.dryRun,
      allowMassArchive: opts.allowMassArchive,
      allowPriceChange: opts.allowPriceChange ?? false,
      lockTimeoutMs: opts.lockTimeoutMs,
      signal: stop.signal,
      onProgress: (d, t) => progress.writes(d, t),
      ...(opts.resolvedTarget ? { target: opts.resolvedTarget } : {}),
      ...(saved
        ? {
            target: { keys: savedPlanKeys(saved) },
            allowMassArchive: saved.allowMassArchive,
            allowPriceChange: saved.allowPriceChange ?? false,
            accept: async (fresh) => {
              const diff = differences(saved, fresh);
              if (diff.length === 0) {
                await markApplied(store, saved.id, new Date());
                return [];
              }
              return [
                `${opts.savedPlan!.path}: the catalogue, the state or the marketplace changed the offers this saved ` +
                  `plan covers, so it was not applied and nothing was sent (make a new one with plan --out):`,
                ...diff.map((d) => `  ${d}`),
              ];
            },
          }
        : {}),
    });
    if (!opts.dryRun) await services.notifier.afterRun(result);
  } catch (err) {
    progress.end();
    stateFault = stateDbFault(err);
    return await exitOfFailedRun(err, {
      io,
      services,
      opts,
      saved: saved !== undefined,
      signal: stop.signal,
      stateFault,
    });
  } finally {
    unregister();
    rate = services.queue.stats().currentRate;
    // Closing saves the queue's pace to the state db: with that db failing, it fails too, and must not hide the
    // paragraph above behind a stack trace.
    await services.close().catch((closeErr: unknown) => {
      if (!stateFault) throw closeErr;
    });
  }
  progress.end();
  const { plan, report } = result;
  if (opts.dryRun && opts.out) writePlanFile(io, opts.out, opts, plan, here);
  if (opts.dryRun) return printPlan(io, opts, result, json, rate);
  if (opts.json) io.stdout.write(json(report));
  else if (!opts.quiet) io.stdout.write(formatReport(report));
  return report.outcome === 'converged' ? EXIT.ok : EXIT.failed;
}

/** Errors name the seller when there are several. */
function sellerPrefix(config: Config): string {
  return config.seller === 'default' ? '' : `seller ${config.seller}: `;
}

/**
 * SIGINT or SIGTERM: no further write starts, requests still waiting are dropped (never sent: their journal entries
 * settle as not sent), and the process exits if writes in flight outlast the deadline.
 */
function listenForStop(
  io: CliIO,
  command: string,
  services: Pick<Services, 'queue'>,
): { readonly stop: AbortController; readonly unregister: () => void } {
  const stop = new AbortController();
  const unregister = onStopSignal((signal) => {
    io.stderr.write(
      `offersync ${command}: ${signal}: stopping. No further write is started; those in flight finish ` +
        `(at most ${STOP_DEADLINE_MS / 1000} s). A second signal exits at once.\n`,
    );
    stop.abort(new Error(`stopped by ${signal}`));
    services.queue.close();
    setTimeout(() => {
      io.stderr.write(
        `offersync ${command}: writes still in flight after ${STOP_DEADLINE_MS / 1000} s: exiting; ` +
          'the next run settles them by reading the marketplace.\n',
      );
      process.exit(EXIT.failed);
    }, STOP_DEADLINE_MS).unref();
  });
  return { stop, unregister };
}

/** plan --out: the plan saved for `reconcile --plan`, bound to this state db, marketplace and seller. */
function writePlanFile(
  io: CliIO,
  out: string,
  opts: RunOptions,
  plan: ReconcileResult['plan'],
  here: { readonly stateId: string; readonly marketplace: string; readonly seller: string },
): void {
  const doc = savePlan(plan, {
    id: randomUUID(),
    ...here,
    allowMassArchive: opts.allowMassArchive,
    allowPriceChange: opts.allowPriceChange ?? false,
    now: new Date(),
  });
  // It holds no credential by design; it leaves offersync through the scrubber all the same.
  writeFileSync(resolve(io.cwd, out), `${scrubSecrets(JSON.stringify(doc, null, 2))}\n`, { mode: 0o600 });
  io.stderr.write(
    `offersync plan: saved to ${out} (${Object.keys(doc.writes).length} writes); ` +
      `carry it out with: offersync reconcile --plan ${out}\n`,
  );
}

/** The plan as a person or a script reads it, and its exit code: 1 when it could not see everything. */
function printPlan(
  io: CliIO,
  opts: RunOptions & { readonly resolvedTarget: Target | undefined },
  result: ReconcileResult,
  json: (doc: object) => string,
  rate: number,
): number {
  const { plan, report } = result;
  const catalogueNotes = catalogueWarnings(result.catalogue.problems, opts.resolvedTarget);
  const notSeen = blindSpots(plan, result.catalogue);
  if (opts.json)
    io.stdout.write(
      json({
        ...planToJson(plan, planCost(plan, rate)),
        catalogue_errors: report.outcomes,
        catalogue_warnings: catalogueNotes,
        not_seen: notSeen,
      }),
    );
  else {
    io.stdout.write(formatPlan(plan, notSeen, planCost(plan, rate)));
    for (const o of report.outcomes)
      io.stdout.write(`  catalogue error ${oneLine(`${o.file}: ${o.externalId}: ${o.message}`)}\n`);
    for (const w of catalogueNotes) io.stdout.write(`  ${oneLine(w)}\n`);
  }
  // A plan that could not see everything is no all-clear, and no "changes pending" either: 1, as a guard's stop.
  if (stoppedByGuard(plan) || notSeen.length > 0) return EXIT.failed;
  return hasChanges(plan) ? EXIT.changesPending : EXIT.ok;
}

/** What a person reads, and the exit code, of a run that threw; an error nobody foresaw is thrown on. */
async function exitOfFailedRun(
  err: unknown,
  at: {
    readonly io: CliIO;
    readonly services: Services;
    readonly opts: RunOptions & { readonly resolvedTarget: Target | undefined };
    readonly saved: boolean;
    readonly signal: AbortSignal;
    readonly stateFault: StateDbFault | undefined;
  },
): Promise<number> {
  const { io, services, opts, saved, signal, stateFault } = at;
  const config = services.config;
  if (signal.aborted) {
    io.stderr.write(`offersync ${opts.command}: ${(signal.reason as Error).message} before the run finished.\n`);
    return EXIT.failed;
  }
  // A daemon holds the lease: a plain reconcile asks it to sync now (a targeted or saved plan is this run's own).
  if (err instanceof LeaseHeldError && !opts.dryRun && !saved && !opts.resolvedTarget)
    return await syncNowBeside(io, services.store, err, {
      statePath: config.state.path,
      json: opts.json,
      prefix: sellerPrefix(config),
      signal,
    });
  if (err instanceof LeaseHeldError) {
    io.stderr.write(`offersync ${opts.command}: ${sellerPrefix(config)}${oneLine(err.message)}\n`);
    return EXIT.lockHeld;
  }
  if (err instanceof WrongOfferError) {
    io.stderr.write(`offersync ${opts.command}: ${sellerPrefix(config)}${oneLine(err.message)}\n`);
    return EXIT.failed;
  }
  if (err instanceof MarketplaceUnreadableError) {
    if (!opts.dryRun) services.notifier.afterUnreadable(err.message);
    io.stderr.write(`offersync ${opts.command}: ${sellerPrefix(config)}${oneLine(err.message)}\n`);
    return EXIT.failed;
  }
  if (stateFault) {
    const paragraph = stateDbParagraph(stateDbShownAs(config.state), stateFault, err, {
      phase: 'run',
      requests: services.queue.stats().requests,
    });
    io.stderr.write(`offersync ${opts.command}: ${sellerPrefix(config)}${oneLine(paragraph)}\n`);
    return EXIT.failed;
  }
  throw err;
}
