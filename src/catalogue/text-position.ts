// Line and column of an offset in a text, for messages an editor can jump to (file:line:column).
// Lines end at LF, CRLF or a lone CR; columns count UTF-16 units from 1, as editors' "go to" does for text
// outside the astral planes.

export interface TextPosition {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

export class LineIndex {
  private starts: number[] | null = null;

  constructor(private readonly text: string) {}

  position(offset: number): TextPosition {
    const starts = this.lineStarts();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  }

  // Built on the first question only: a file without problems never pays for it.
  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const starts = [0];
    const t = this.text;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13) {
        if (t.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      }
    }
    this.starts = starts;
    return starts;
  }
}
