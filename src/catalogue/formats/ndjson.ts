// NDJSON catalogue files: one offer a line, read a line at a time, so that a large file's raw records are never
// all held.
import { locateJsonError } from '../json-error.ts';
import type { TextPosition } from '../text-position.ts';
import { jsonLocator } from './json.ts';
import {
  isPlainObject,
  pointerOf,
  type Locator,
  type ParseEnd,
  type ParseProblem,
  type RawRecord,
  type RecordStream,
} from './parsed-file.ts';

export function streamNdjson(text: string): RecordStream {
  function* records(): Generator<RawRecord, ParseEnd, undefined> {
    const problems: ParseProblem[] = [];
    let unreadable = false;
    for (let start = 0, i = 0; start <= text.length; i++) {
      const nl = text.indexOf('\n', start);
      const stop = nl < 0 ? text.length : nl;
      let l = text.slice(start, stop);
      start = stop + 1;
      if (i === 0 && l.charCodeAt(0) === 0xfeff) l = l.slice(1);
      if (l.endsWith('\r')) l = l.slice(0, -1);
      if (l.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(l);
        if (!isPlainObject(value)) {
          problems.push({ severity: 'error', message: 'each line must be one offer (a JSON object)', line: i + 1 });
          unreadable = true;
        } else yield { value, line: i + 1 };
      } catch (err) {
        const at = locateJsonError(l, (err as Error).message);
        problems.push({
          severity: 'error',
          message: `not valid JSON: ${at.message} (column ${at.column}); each line must be one complete JSON object`,
          line: i + 1,
          column: at.column,
        });
        unreadable = true;
      }
    }
    return { problems, unreadable };
  }
  // Where each line starts, found on the first question; one line's map at a time: problems come record by record.
  let starts: number[] | undefined;
  let cached: { line: number; find: (pointer: string) => TextPosition | undefined } | undefined;
  const locate: Locator = (record, path) => {
    const line = record.line;
    if (line === undefined) return undefined;
    if (cached?.line !== line) {
      starts ??= lineStarts(text);
      const from = starts[line - 1];
      if (from === undefined) return undefined;
      const to = starts[line] ?? text.length + 1;
      const lineText = text
        .slice(from, to - 1)
        .replace(/^\uFEFF/, '')
        .replace(/\r$/, '');
      cached = { line, find: jsonLocator(lineText, line - 1) };
    }
    return cached.find(pointerOf('', path));
  };
  return { locate, records: records() };
}

/** Offsets at which the lines of an NDJSON text start (lines end at LF, as the reader splits them). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) starts.push(nl + 1);
  return starts;
}
