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

// undici loads node:http2 (and with it node:tls) at start, for an HTTP/2 client offersync never asks for (allowH2
// stays off): 20 ms of CPU at every start. In the bundle undici gets HTTP/2's constants (the protocol's own values,
// read when undici loads) and a connect that loads node:http2 on its first call.
const lazyHttp2 = {
  name: 'lazy-http2',
  setup(b) {
    b.onResolve({ filter: /^node:http2$/ }, (args) =>
      args.importer.includes(`${join('node_modules', 'undici')}`)
        ? { path: 'node:http2', namespace: 'lazy-http2' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-http2' }, () => ({
      loader: 'js',
      contents: `module.exports = {
  constants: {
    HTTP2_HEADER_AUTHORITY: ':authority', HTTP2_HEADER_METHOD: ':method', HTTP2_HEADER_PATH: ':path',
    HTTP2_HEADER_SCHEME: ':scheme', HTTP2_HEADER_CONTENT_LENGTH: 'content-length', HTTP2_HEADER_EXPECT: 'expect',
    HTTP2_HEADER_STATUS: ':status', HTTP2_HEADER_PROTOCOL: ':protocol', NGHTTP2_REFUSED_STREAM: 7, NGHTTP2_CANCEL: 8,
  },
  connect: (...args) => process.getBuiltinModule('node:http2').connect(...args),
};`,
    }));
  },
};
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
  plugins: [lazyHttp2],
  legalComments: 'none',
  logLevel: 'warning',
});
