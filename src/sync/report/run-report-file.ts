// Each run's report as a file beside the state db (runs/<run id>.json): every offer's outcome, however many, for
// `offersync status --run ID` and for a `reconcile` that asked a running daemon to sync now. The terminal shows
// a run's first lines only; this is the full list. As many are kept as the state db keeps runs (state.keepRuns).
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../../log/logger.ts';
import { scrubSecrets } from '../../log/scrubber.ts';
import type { RunReport } from './run-report.ts';
import { runReportJson } from './run-report-json.ts';

const DEFAULT_KEEP = 200;
/** Run ids as newRunId makes them: 20261124T233549-323414. Nothing else is read, written or deleted there. */
const RUN_ID = /^\d{8}T\d{6}-[0-9a-f]{6}$/;

/** The folder of the report files, or null for a state db held in memory. */
export function runReportDir(statePath: string): string | null {
  return statePath === ':memory:' ? null : join(dirname(statePath), 'runs');
}

export function runReportPath(statePath: string, runId: string): string | null {
  const dir = runReportDir(statePath);
  return dir && RUN_ID.test(runId) ? join(dir, `${runId}.json`) : null;
}

/** Writes the report and deletes the oldest beyond `keep`. A failure is logged: the run itself is done. */
export function writeRunReport(statePath: string, report: RunReport, keep = DEFAULT_KEEP, logger?: Logger): void {
  const dir = runReportDir(statePath);
  const path = runReportPath(statePath, report.runId);
  if (!dir || !path) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // It holds no credential by design (outcomes name fields, never values of credentials); scrubbed all the same.
    // Written a piece at a time: the whole text of 100,000 outcomes at once was a first sync's peak of memory.
    const fd = openSync(path, 'w', 0o600);
    try {
      for (const piece of runReportJson(report)) writeSync(fd, scrubSecrets(piece));
      writeSync(fd, '\n');
    } finally {
      closeSync(fd);
    }
    const old = readdirSync(dir)
      .filter((f) => f.endsWith('.json') && RUN_ID.test(f.slice(0, -5)))
      .sort()
      .slice(0, -Math.max(1, keep));
    for (const f of old) rmSync(join(dir, f), { force: true });
  } catch (err) {
    logger?.warn({ err: (err as Error).message, path }, 'the run report file could not be written');
  }
}

/** A run's report, or undefined when its file is gone (older than state.keepRuns runs) or was never written. */
export function readRunReport(statePath: string, runId: string): RunReport | undefined {
  const path = runReportPath(statePath, runId);
  if (!path) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as RunReport;
  } catch {
    return undefined;
  }
}
