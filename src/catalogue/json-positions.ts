// Where each value of a valid JSON text starts, by RFC 6901 pointer. JSON.parse gives no positions, so a problem
// found in a parsed value is traced back to its line and column with this map, built only for a file that has
// a problem to report.
import { pointerToken } from './catalogue-problem.ts';

const WS = new Set([32, 9, 10, 13]);
const MAX_DEPTH = 64;

/** pointer -> offset of the first character of the value (for the whole text: ''). Expects valid JSON. */
export function jsonValueOffsets(text: string): Map<string, number> {
  const out = new Map<string, number>();
  let i = 0;
  const ws = (): void => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  };
  const stringEnd = (from: number): number => {
    let j = from + 1;
    for (;;) {
      const c = text.charCodeAt(j);
      if (Number.isNaN(c)) return j;
      if (c === 92) j += 2;
      else if (c === 34) return j + 1;
      else j++;
    }
  };
  // Values nested deeper than any offer are skipped whole (not mapped), so a hostile file cannot overflow the stack.
  const skip = (): void => {
    let depth = 0;
    do {
      const c = text.charCodeAt(i);
      if (c === 34) i = stringEnd(i);
      else {
        if (c === 123 || c === 91) depth++;
        else if (c === 125 || c === 93) depth--;
        i++;
      }
    } while (depth > 0 && i < text.length);
  };
  const value = (pointer: string, depth: number): void => {
    ws();
    out.set(pointer, i);
    const c = text.charCodeAt(i);
    if ((c === 123 || c === 91) && depth > MAX_DEPTH) skip();
    else if (c === 123 /* { */) {
      i++;
      ws();
      if (text.charCodeAt(i) === 125) return void i++;
      for (;;) {
        ws();
        const end = stringEnd(i);
        const key = JSON.parse(text.slice(i, end)) as string;
        i = end;
        ws();
        i++; // ':'
        value(`${pointer}/${pointerToken(key)}`, depth + 1);
        ws();
        if (text.charCodeAt(i++) !== 44 /* , */) return;
      }
    } else if (c === 91 /* [ */) {
      i++;
      ws();
      if (text.charCodeAt(i) === 93) return void i++;
      for (let n = 0; ; n++) {
        value(`${pointer}/${n}`, depth + 1);
        ws();
        if (text.charCodeAt(i++) !== 44) return;
      }
    } else if (c === 34) i = stringEnd(i);
    else {
      while (i < text.length && !WS.has(text.charCodeAt(i)) && !',]}'.includes(text[i]!)) i++;
    }
  };
  value('', 0);
  return out;
}

/** The offset of the value at `pointer`, else of its nearest enclosing value that exists (a missing field). */
export function nearestOffset(offsets: ReadonlyMap<string, number>, pointer: string): number | undefined {
  let p = pointer;
  for (;;) {
    const at = offsets.get(p);
    if (at !== undefined) return at;
    if (p === '') return undefined;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}
