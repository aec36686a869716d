// The stages of a sync import downward only: an offer's fields know nothing of plans, planning knows nothing of
// execution, and no stage imports the reconciler above it. A file put in the wrong stage fails here, naming it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SYNC = join(ROOT, 'src', 'sync');

/** Every .ts file under dir, repo-relative. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => relative(ROOT, join(dir, f)));
}

/** The repo-relative files a source file imports by a relative path. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((m) => normalize(join(dirname(file), m[1]!)));
}

/** Imports of the files under `stage` that reach into any of `above`. */
function upward(stage: string, above: readonly string[]): string[] {
  return filesUnder(join(SYNC, stage)).flatMap((f) =>
    importsOf(f)
      .filter((target) => above.some((a) => target.startsWith(`src/sync/${a}`)))
      .map((target) => `${f} imports ${target}`),
  );
}

describe('the stages of src/sync', () => {
  it('planning imports no execution and no report', () => {
    expect(upward('plan', ['execute/', 'report/', 'reconciler.ts'])).toEqual([]);
  });

  it("an offer's fields import no stage above them", () => {
    expect(upward('fields', ['plan/', 'execute/', 'report/', 'reconciler.ts'])).toEqual([]);
  });

  it('reports import no execution', () => {
    expect(upward('report', ['execute/', 'reconciler.ts'])).toEqual([]);
  });

  it('execution does not import the reconciler', () => {
    expect(upward('execute', ['reconciler.ts'])).toEqual([]);
  });

  it('src/sync keeps at most 12 files at its top', () => {
    const top = readdirSync(SYNC, { withFileTypes: true }).filter((e) => e.isFile());
    expect(top.length).toBeLessThanOrEqual(12);
  });
});
