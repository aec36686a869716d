// npm run build: the CLI in dist/cli/ as a few ES modules (esbuild), its libraries inside them. A start then reads
// a handful of files instead of about 900 (its own and its libraries'), which took half a second of CPU each time
// the CLI started. The commands stay in chunks of their own, loaded when run. Every chunk sits in dist/cli/, so a
// path a module finds from its own URL ('../../package.json') is the same as in the sources. Left out: the native
// and optional packages, loaded from node_modules as before. Types are checked by npm run typecheck, not here.
//   node scripts/build.mjs [outdir]   (default dist)
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = process.argv[2] ?? join(root, 'dist');
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/entry.ts'],
  outdir: join(outdir, 'cli'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: ['better-sqlite3', 'pg-native', 'fsevents'],
  // The CommonJS libraries inside (undici, pg, yaml, pino) call require(): an ES module has none of its own.
  banner: { js: "import { createRequire as __offersyncRequire } from 'node:module';\nconst require = __offersyncRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
});
