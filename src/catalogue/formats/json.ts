// JSON catalogue files: one offer, an array, or {kind?, offers: [...]}, read whole; values are placed by
// pointer, their offsets mapped only when a problem asks.
import { locateJsonError } from '../json-error.ts';
import { jsonValueOffsets, nearestOffset } from '../json-positions.ts';
import { LineIndex, type TextPosition } from '../text-position.ts';
import { pointerOf, type Locator, type ParsedFile, type ParseProblem, type RawRecord } from './parsed-file.ts';
import { recordsOf } from './top-level.ts';

/** Locates values of a JSON text by pointer; the offsets are mapped on the first question. */
export function jsonLocator(text: string, lineOffset = 0): (pointer: string) => TextPosition | undefined {
  let offsets: Map<string, number> | undefined;
  let lines: LineIndex | undefined;
  return (pointer) => {
    offsets ??= jsonValueOffsets(text);
    lines ??= new LineIndex(text);
    const at = nearestOffset(offsets, pointer);
    if (at === undefined) return undefined;
    const p = lines.position(at);
    return { line: p.line + lineOffset, column: p.column };
  };
}

export function parseJson(text: string): ParsedFile {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const out = { records: [] as RawRecord[], problems: [] as ParseProblem[] };
  // No record: the loader says what an empty file means (load-file.ts).
  if (body.trim() === '') return { ...out, unreadable: false };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    const at = locateJsonError(body, (err as Error).message);
    out.problems.push({
      severity: 'error',
      message: `not valid JSON: ${at.message} (line ${at.line}, column ${at.column})`,
      line: at.line,
      column: at.column,
    });
    return { ...out, unreadable: true };
  }
  const find = jsonLocator(body);
  const r = recordsOf(value, out);
  for (let k = 0; k < out.problems.length; k++) {
    const p = out.problems[k]!;
    const at = p.pointer !== undefined ? find(p.pointer) : undefined;
    if (at) out.problems[k] = { ...p, line: at.line, column: at.column };
  }
  const locate: Locator = (record, path) => find(pointerOf(record.pointer ?? '', path));
  return { ...out, ...r, locate };
}
