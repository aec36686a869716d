// The CLI the tests start as a child process: the package as installed (bin/offersync.js, dist/, package.json,
// config/), compiled once per change of the sources into node_modules/.cache, by the first test file of a run
// that starts the CLI. A child then loads plain JavaScript, as the image and an npm install run it, in a third
// of the CPU the sources through tsx take. Outside vitest the tests' helpers run the sources.
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
import { dirname, join, relative } from 'node:path';
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
    ...['package.json', 'tsconfig.json', 'scripts/build.mjs', 'bin/offersync.js'].map((f) => join(ROOT, f)),
  ];
  for (const f of inputs) h.update(relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex').slice(0, 16);
}

/** Where the build of the sources as they are now goes: node_modules/.cache/offersync-cli/<hash>/bin/offersync.js. */
export function builtCliPath(): string {
  return join(ROOT, 'node_modules', '.cache', 'offersync-cli', sourcesHash(), 'bin', 'offersync.js');
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
/** A build takes seconds; a lock older than this was left by a run that was killed. */
const STALE_LOCK_MS = 120_000;

/**
 * Builds the package whose bin is `bin` (a builtCliPath) unless it is there. Called by the first test file that
 * starts the CLI, in a test worker: one worker builds under a lock, the others wait for it.
 */
export function ensureBuilt(bin: string): void {
  const home = dirname(dirname(bin));
  const cache = dirname(home);
  const lock = `${home}.lock`;
  mkdirSync(cache, { recursive: true });
  for (let waited = 0; !existsSync(bin); ) {
    try {
      mkdirSync(lock);
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true, recursive: true });
      if (waited > 2 * STALE_LOCK_MS) throw new Error(`waited ${waited / 1000} s for ${lock} to go: remove it`);
      sleep(100);
      waited += 100;
      continue;
    }
    try {
      if (!existsSync(bin)) build(home, cache);
    } finally {
      rmSync(lock, { force: true, recursive: true });
    }
  }
}

function build(home: string, cache: string): void {
  // Built aside and renamed into place: nothing ever starts a half-written package.
  const building = `${home}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(join(building, 'bin'), { recursive: true });
  // The same build as npm run build (scripts/build.mjs), into the folder aside.
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), join(building, 'dist')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`building the CLI for the tests failed:\n${built.stdout}${built.stderr}`);
  copyFileSync(join(ROOT, 'package.json'), join(building, 'package.json'));
  copyFileSync(join(ROOT, 'bin', 'offersync.js'), join(building, 'bin', 'offersync.js'));
  symlinkSync(join(ROOT, 'config'), join(building, 'config'));
  symlinkSync(join(ROOT, 'node_modules'), join(building, 'node_modules'));
  // Builds of older sources go once no run can still be using them (the cache may serve several clones).
  for (const old of readdirSync(cache))
    if (Date.now() - statSync(join(cache, old)).mtimeMs > 6 * 3600_000)
      rmSync(join(cache, old), { recursive: true, force: true });
  renameSync(building, home);
}

/**
 * vitest's globalSetup: where the build of these sources goes, for the test workers. Nothing is built here: a run
 * whose files start no CLI (one unit test while working) waits for no build.
 */
export default function setup(): void {
  // Each vitest project runs the global setup, all in one process: the first says where.
  process.env[BUILT_CLI_ENV] ??= builtCliPath();
}
