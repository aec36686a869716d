// The CLI the tests start as a child process: the package as installed (bin/offersync.js, dist/, package.json,
// config/), compiled once per change of the sources into node_modules/.cache. A child then loads plain
// JavaScript, as the image and an npm install run it, in a third of the CPU the sources through tsx take.
// vitest runs this once before the test files (globalSetup); outside vitest the tests' helpers run the sources.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the helpers find the built bin: test/support/cli.ts reads it. */
export const BUILT_CLI_ENV = 'OFFERSYNC_TEST_BUILT_CLI';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** A hash of everything the build reads: a changed source is a new build, an unchanged tree reuses the last. */
function sourcesHash(): string {
  const h = createHash('sha256');
  const inputs = [
    ...filesUnder(join(ROOT, 'src')),
    ...filesUnder(join(ROOT, 'config')),
    ...['package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin/offersync.js'].map((f) => join(ROOT, f)),
  ];
  for (const f of inputs) h.update(relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex').slice(0, 16);
}

/** Builds the package into node_modules/.cache/offersync-cli/<hash> unless it is there; returns its bin. */
export function builtCli(): string {
  const cache = join(ROOT, 'node_modules', '.cache', 'offersync-cli');
  const home = join(cache, sourcesHash());
  const bin = join(home, 'bin', 'offersync.js');
  if (existsSync(bin)) return bin;
  // Built aside and renamed into place: two runs at once never start a half-written package.
  const building = `${home}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(join(building, 'bin'), { recursive: true });
  const tsc = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
      '--outDir',
      join(building, 'dist'),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (tsc.status !== 0) throw new Error(`building the CLI for the tests failed:\n${tsc.stdout}${tsc.stderr}`);
  copyFileSync(join(ROOT, 'package.json'), join(building, 'package.json'));
  copyFileSync(join(ROOT, 'bin', 'offersync.js'), join(building, 'bin', 'offersync.js'));
  symlinkSync(join(ROOT, 'config'), join(building, 'config'));
  symlinkSync(join(ROOT, 'node_modules'), join(building, 'node_modules'));
  // Builds of older sources go once no run can still be using them (the cache may serve several clones).
  for (const old of readdirSync(cache))
    if (Date.now() - statSync(join(cache, old)).mtimeMs > 6 * 3600_000)
      rmSync(join(cache, old), { recursive: true, force: true });
  try {
    renameSync(building, home);
  } catch {
    // Another run put the same build in place first.
    rmSync(building, { recursive: true, force: true });
  }
  return bin;
}

/** vitest's globalSetup: build (or find) the CLI, and tell the test workers where it is. */
export default function setup(): void {
  // Each vitest project runs the global setup, all in one process: the first builds.
  process.env[BUILT_CLI_ENV] ??= builtCli();
}
