// Temporary catalogue directories for tests: files by catalogue-relative path, removed after the test.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Catalogue, type CatalogueOptions, type CatalogueSnapshot } from '../../../src/catalogue/catalogue.ts';
import type { CatalogueProblem } from '../../../src/catalogue/catalogue-problem.ts';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/catalogue/', import.meta.url));
export const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));

const made: string[] = [];

export function tmpCatalogue(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'offersync-cat-test-'));
  made.push(dir);
  for (const [rel, content] of Object.entries(files)) writeFile(dir, rel, content);
  return dir;
}

export function writeFile(dir: string, rel: string, content: string | Buffer): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), content);
}

export function cleanup(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export async function load(dir: string, opts: Partial<CatalogueOptions> = {}): Promise<CatalogueSnapshot> {
  return new Catalogue({ dir, credentialsKey: 'test-key', ...opts }).load();
}

/** Problems without the message, for exact comparison; messages are checked with toMatch. */
export function where(p: CatalogueProblem): Record<string, unknown> {
  const { message: _m, ...rest } = p;
  return rest;
}

export const errors = (s: CatalogueSnapshot): CatalogueProblem[] => s.problems.filter((p) => p.severity === 'error');
export const warnings = (s: CatalogueSnapshot): CatalogueProblem[] =>
  s.problems.filter((p) => p.severity === 'warning');
export const ids = (s: CatalogueSnapshot): string[] => s.offers.map((o) => o.externalId).sort();

/** The good file every bad-input case sits beside: its two offers must always load. */
export const GOOD = { 'items/good.yaml': fixture('good-items.yaml') };
export const GOOD_IDS = ['good-1', 'good-2'];
