// reconcile beside a running daemon: instead of exit 4, ask the daemon to sync now (sync-request.ts) and print
// that run's summary, offer by offer, as if this reconcile had run it.
import { EXIT, type CliIO } from './command.ts';
import { oneLine } from '../log/terminal-text.ts';
import type { LeaseHeldError } from '../state/writer-lease.ts';
import { readRunReport } from '../sync/report/run-report-file.ts';
import { askToSyncNow, type MetaStore } from '../sync-now/sync-request.ts';
import { formatReport } from './format-report.ts';

/** A daemon polls every second; one that has not acknowledged in this long is no daemon (or an older one). */
const ACK_TIMEOUT_MS = 5_000;
/** The daemon's run may wait behind the one in progress; a run longer than this is looked at with status. */
const RUN_TIMEOUT_MS = 30 * 60_000;
const POLL_MS = 200;

export async function syncNowBeside(
  io: CliIO,
  store: MetaStore,
  held: LeaseHeldError,
  opts: { readonly statePath: string; readonly json: boolean; readonly prefix: string; readonly signal: AbortSignal },
): Promise<number> {
  const say = (s: string) => io.stderr.write(`offersync reconcile: ${opts.prefix}${oneLine(s)}\n`);
  say(
    `another offersync holds the state db (pid ${held.heldBy.pid} on ${held.heldBy.hostname}): asking it to sync now`,
  );
  const asked = await askToSyncNow(store, {
    ackTimeoutMs: ACK_TIMEOUT_MS,
    runTimeoutMs: RUN_TIMEOUT_MS,
    pollMs: POLL_MS,
    signal: opts.signal,
  });
  if (asked.kind === 'unanswered') {
    if (asked.stage === 'ack') {
      say(`${held.message} (it did not take up the request to sync now: it is no daemon, or an older offersync)`);
      return EXIT.lockHeld;
    }
    say(
      `the daemon took the request to sync now, but its run did not end within ${RUN_TIMEOUT_MS / 60_000} min ` +
        '(or this wait was stopped); see offersync status',
    );
    return EXIT.failed;
  }
  const { answer } = asked;
  if (answer.error !== undefined || answer.runId === undefined) {
    say(`the daemon's run failed: ${answer.error ?? 'no run id'}. Nothing more was sent.`);
    return EXIT.failed;
  }
  const report = readRunReport(opts.statePath, answer.runId);
  if (!report) {
    // The daemon runs on another machine (a PostgreSQL state): its report file is there.
    say(
      `the daemon ran it as run ${answer.runId}: ${answer.outcome ?? 'done'}; its full report is beside the ` +
        `daemon's state folder (offersync status --run ${answer.runId} on that machine)`,
    );
    return answer.outcome === 'converged' ? EXIT.ok : EXIT.failed;
  }
  say(`the daemon ran it as run ${report.runId}:`);
  io.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.outcome === 'converged' ? EXIT.ok : EXIT.failed;
}
