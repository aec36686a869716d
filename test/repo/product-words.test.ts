// The repo speaks of the product, never of how or where it was built: a reader has neither the host it was
// built on nor the people or the report it was built for. Each phrase below tells of those, not of offersync.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const THIS_FILE = 'test/repo/product-words.test.ts';
const BUILT_WORDS = [
  /\b(2|two)[- ]cores?\b/i,
  /\bengineers?\b/i,
  /\bthe issue'?s?\b/i,
  /\bbefore this release\b/i,
  /\bthe release before this one\b/i,
  /\bused to\b.*\bnow\b/i,
  /\bshared with (five )?other\b/i,
];

function trackedText(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', 'src', 'test', 'docs', 'README.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return out.split('\0').filter((f) => /\.(ts|mjs|js|md|sh)$/.test(f) && f !== THIS_FILE);
}

describe('words of the product', () => {
  it('no tracked source, test or doc tells of the host, the people or the report it was built with', () => {
    const files = trackedText();
    expect(files.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const file of files) {
      readFileSync(`${ROOT}${file}`, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (BUILT_WORDS.some((w) => w.test(line))) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, 'say it in words of the product: what it does and why').toEqual([]);
  });
});
