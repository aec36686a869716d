// A run report's JSON a piece at a time, the same text JSON.stringify(report) makes: 100,000 outcomes are ten
// megabytes of text, and one string of it, scrubbed (a copy) and encoded for the file (another), was the peak of
// a first sync's memory. Each piece holds whole values, so a secret, always inside one value, never spans two.
import type { RunReport } from './run-report.ts';

/** Outcomes per piece: a few hundred KB of text. */
export const OUTCOMES_PER_PIECE = 2000;

/** Pieces whose concatenation is JSON.stringify(report). */
export function* runReportJson(report: RunReport): Generator<string> {
  let first = true;
  for (const [key, value] of Object.entries(report)) {
    const json = key === 'outcomes' ? undefined : (JSON.stringify(value) as string | undefined);
    // JSON.stringify leaves out a field whose value is undefined (or a function): so is it here.
    if (key !== 'outcomes' && json === undefined) continue;
    const name = `${first ? '{' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (json !== undefined) {
      yield name + json;
      continue;
    }
    yield `${name}[`;
    const { outcomes } = report;
    for (let from = 0; from < outcomes.length; from += OUTCOMES_PER_PIECE) {
      const piece = outcomes.slice(from, from + OUTCOMES_PER_PIECE).map((o) => JSON.stringify(o));
      yield `${from === 0 ? '' : ','}${piece.join(',')}`;
    }
    yield ']';
  }
  yield first ? '{}' : '}';
}
