// Progress for a person at a terminal, on stderr (stdout carries the report, the plan or JSON), for every long
// phase: reading (catalogue files and marketplace requests, which run side by side), then writing (done/total,
// rate, ETA). Nothing at all when stderr is not a terminal.
import { type TerminalText, terminalLine, writeTerminal } from '../log/terminal-text.ts';

export interface Progress {
  catalogueFiles(done: number, total: number): void;
  /** One marketplace request answered while reading (list pages, lookups). */
  marketplaceRequest(): void;
  writes(done: number, total: number): void;
  end(): void;
}

/** For runs whose output is for machines, and for terminals that are not. */
export const noProgress: Progress = { catalogueFiles() {}, marketplaceRequest() {}, writes() {}, end() {} };

/** The line drawn over the one before (terminal-text.ts makes the control sequence that clears it). */
const redraw = (text: string, newline = false): TerminalText =>
  terminalLine(text, { colour: false, clearLine: true, newline });

export function createProgress(stream: NodeJS.WritableStream & { isTTY?: boolean }, now = Date.now): Progress {
  if (!stream.isTTY) return noProgress;
  const started = now();
  let phase: 'reading' | 'writing' = 'reading';
  let files = { done: 0, total: 0 };
  let requests = 0;
  let writes = { done: 0, total: 0, started: 0 };
  let drawnAt = 0;
  let shown = false;

  const secs = (since: number) => Math.max(0.001, (now() - since) / 1000);
  const readingLine = () =>
    `reading: catalogue ${files.done}/${files.total} files, ` +
    `marketplace ${requests} requests  ${secs(started).toFixed(1)} s`;
  const writingLine = () => {
    const { done, total } = writes;
    const rate = done / secs(writes.started);
    const eta = rate > 0 ? Math.ceil((total - done) / rate) : 0;
    const width = 30;
    const filled = total > 0 ? Math.round((done / total) * width) : width;
    const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
    return `writing: [${bar}] ${done}/${total}  ${rate.toFixed(1)}/s  ETA ${eta} s`;
  };
  const draw = (force = false) => {
    const t = now();
    if (!force && t - drawnAt < 100) return;
    drawnAt = t;
    writeTerminal(stream, redraw(phase === 'reading' ? readingLine() : writingLine()));
    shown = true;
  };

  return {
    catalogueFiles(done, total) {
      files = { done, total };
      draw(done === total);
    },
    marketplaceRequest() {
      if (phase !== 'reading') return;
      requests++;
      draw();
    },
    writes(done, total) {
      if (phase === 'reading') {
        // The reading line stays on screen as a record of that phase.
        if (shown) writeTerminal(stream, redraw(readingLine(), true));
        phase = 'writing';
        writes = { done, total, started: now() };
      }
      writes = { ...writes, done, total };
      draw(done === total);
    },
    end() {
      if (shown) {
        draw(true);
        stream.write('\n');
      }
      shown = false;
    },
  };
}
