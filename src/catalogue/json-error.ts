// Where a JSON text goes wrong. JSON.parse does not always say (V8's "Unexpected token" has no position),
// so on failure a small validating scanner finds the offset, turned into a line and column for the report.

export interface JsonErrorAt {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly what: string,
  ) {
    super(what);
  }
}

function scan(text: string): void {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new Stop(i, i >= text.length ? 'the file ends in the middle of a value (truncated?)' : what);
  };
  /** An object's or an array's members after its opening bracket, comma-separated up to `close`. */
  const members = (close: '}' | ']', member: string, each: () => void): void => {
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      each();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === close) return void i++;
      fail(`expected ',' or '${close}' after ${member}, found ${show(text[i])}`);
    }
  };
  const value = (depth: number): void => {
    if (depth > 512) fail('nesting too deep');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      members('}', 'a property value', () => {
        ws();
        if (text[i] !== '"') fail(`expected a double-quoted property name, found ${show(text[i])}`);
        str();
        ws();
        if (text[i] !== ':') fail(`expected ':' after the property name, found ${show(text[i])}`);
        i++;
        value(depth + 1);
      });
    } else if (c === '[') {
      i++;
      members(']', 'an array element', () => value(depth + 1));
    } else if (c === '"') str();
    else if (c !== undefined && /[-0-9]/.test(c)) {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      if (!m) fail('malformed number');
      i += m![0].length;
    } else if (text.startsWith('true', i)) i += 4;
    else if (text.startsWith('false', i)) i += 5;
    else if (text.startsWith('null', i)) i += 4;
    else fail(`expected a value, found ${show(c)}`);
  };
  const str = (): void => {
    i++;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const ch = text.charCodeAt(i);
      if (ch === 34) return void i++;
      if (ch < 0x20) fail('a control character (a raw newline or tab) inside a string: write it as \\n or \\t');
      if (ch === 92) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('bad \\u escape');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail('bad escape in a string');
      } else i++;
    }
  };
  value(0);
  ws();
  if (i < text.length) fail(`unexpected text after the JSON value: ${show(text[i])}`);
}

function show(c: string | undefined): string {
  if (c === undefined) return 'the end of the file';
  const code = c.charCodeAt(0);
  return code < 0x20 || code === 0x7f ? `the control character 0x${code.toString(16).padStart(2, '0')}` : `'${c}'`;
}

/** Line (1-based) and column (1-based) of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let k = text.indexOf('\n'); k >= 0 && k < offset; k = text.indexOf('\n', k + 1)) {
    line++;
    last = k;
  }
  return { line, column: offset - last };
}

export function locateJsonError(text: string, fallback: string): JsonErrorAt {
  try {
    scan(text);
  } catch (err) {
    if (err instanceof Stop) return { ...lineColumn(text, err.offset), message: err.what };
  }
  return { line: 1, column: 1, message: fallback };
}
