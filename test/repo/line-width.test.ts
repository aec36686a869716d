// Lines of at most 120 characters: the formatter keeps code within it, but cannot break a long string
// or template literal, so this names each line that grew past it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAX = 120;
const INLINE_SNAPSHOT_LINE = /^\s+"[A-Za-z_]+": ".*",?$/;

/** The .ts files git tracks under src/ and test/. */
function trackedSources(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', 'src/*.ts', 'test/*.ts'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\0').filter((f) => f !== '');
}

describe('line width', () => {
  it(`no line of a tracked .ts file under src/ or test/ is longer than ${MAX} characters`, () => {
    const files = trackedSources();
    expect(files.length).toBeGreaterThan(0);
    const long: string[] = [];
    for (const file of files) {
      readFileSync(`${ROOT}${file}`, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // Characters as a person counts them: an emoji is one, not two UTF-16 units.
          const width = [...line.replace(/\r$/, '')].length;
          // An inline snapshot's line ("key": "value") is vitest's to write; a message it pins may be long.
          if (width > MAX && !INLINE_SNAPSHOT_LINE.test(line)) long.push(`${file}:${i + 1} (${width})`);
        });
    }
    expect(long, `lines longer than ${MAX} characters (file:line (length))`).toEqual([]);
  });
});
