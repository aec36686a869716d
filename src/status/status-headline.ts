// The status page's one-line verdict, from the same counts as its sections (StatusBoard's TroubleCounts): the
// headline can only name what a section below lists.
import type { StatusView } from './status-board.ts';

export type Tone = 'ok' | 'warn' | 'bad' | 'info';

export interface Headline {
  readonly text: string;
  readonly tone: Tone;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** What a seller must know first: waiting, stopped, broken, or which of the sections holds offers and how many. */
export function headline(v: Pick<StatusView, 'daemon' | 'trouble'>): Headline {
  const d = v.daemon;
  if (d.waiting) return { text: 'waiting', tone: 'warn' };
  if (d.guardStop) return { text: 'stopped by a guard: nothing sent', tone: 'bad' };
  if (d.lastError) return { text: 'last run failed', tone: 'bad' };
  if (d.lastOutcome === null) return { text: d.running ? 'first run going on' : 'starting', tone: 'info' };
  const t = v.trouble;
  const parts = [
    ...(t.failed > 0 ? [`${plural(t.failed, 'offer', 'offers')} failed`] : []),
    ...(t.held > 0 ? [`${plural(t.held, 'offer', 'offers')} held back`] : []),
    ...(t.invalid > 0 ? [`${plural(t.invalid, 'invalid offer', 'invalid offers')} in the catalogue`] : []),
  ];
  if (parts.length > 0) return { text: parts.join(', '), tone: t.failed > 0 ? 'bad' : 'warn' };
  if (d.lastOutcome === 'converged') return { text: 'in sync', tone: 'ok' };
  // Nothing listed, yet not converged: a stopped or aborted run, named as the runs table names it.
  return { text: `last run ${d.lastOutcome}`, tone: d.lastOutcome === 'stopped' ? 'warn' : 'bad' };
}
