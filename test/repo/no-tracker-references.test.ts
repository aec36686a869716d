// The repo speaks of itself: a comment, test name or doc that names an issue by its number points at a
// tracker a reader of the repo does not have. Each such place says its reason in its own words instead.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REFERENCE = /\bissue ?#?[0-9]+/i;

function trackedText(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', 'src', 'test', 'docs', 'README.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return out.split('\0').filter((f) => /\.(ts|mjs|js|md|yaml|yml|json)$/.test(f));
}

describe('no tracker references', () => {
  it('no tracked source, test or doc names an issue by number', () => {
    const files = trackedText();
    expect(files.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const file of files) {
      readFileSync(`${ROOT}${file}`, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (REFERENCE.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, "say the reason in the repo's own words instead of an issue number").toEqual([]);
  });
});
