// One runtime: the Node that runs these tests is the image's. The Dockerfile's `FROM node:NN`, the pinned `node`
// devDependency (which `npm run` and `npx` put first on PATH) and the README's word on the tested version name the
// same major, and the Node running this file is of that major, so the tests can never again pass on a runtime the
// product does not ship on.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const major = (version: string) => Number(/^\D*(\d+)/.exec(version)?.[1]);

const dockerfile = read('Dockerfile');
const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const imageMajors = [...dockerfile.matchAll(/^FROM\s+node:(\d+)/gm)].map((m) => Number(m[1]));

describe('one runtime for the tests, the tools and the image', () => {
  it('every stage of the Dockerfile is FROM the same node major', () => {
    expect(imageMajors.length).toBeGreaterThan(0);
    expect(new Set(imageMajors).size).toBe(1);
  });

  it('the Node running the tests is the image major', () => {
    expect(major(process.versions.node)).toBe(imageMajors[0]);
  });

  it('the node devDependency is pinned to an exact version of the image major', () => {
    const pinned = pkg.devDependencies.node;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(major(pinned ?? '')).toBe(imageMajors[0]);
  });

  it('engines names what is supported (22 or newer: better-sqlite3 13 loads there only)', () => {
    expect(pkg.engines.node).toMatch(/^>=22(\.|$)/);
  });

  it('the README names the version the tests ran on, of the image major', () => {
    const said = /The tests run on Node\.js (\d+)\.(\d+)\.(\d+)/.exec(read('README.md'));
    expect(said, 'the README says "The tests run on Node.js X.Y.Z"').not.toBeNull();
    expect(said?.slice(1).join('.')).toBe(pkg.devDependencies.node);
  });
});
