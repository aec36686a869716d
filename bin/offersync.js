#!/usr/bin/env node
// The offersync command. Installed from the package it runs the compiled CLI in dist/; in a clone after
// `npm install` (no dist/), it runs the TypeScript sources through tsx, so `npx offersync ...` works there too.
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';

// better-sqlite3 13 (the state db) loads on Node 22 or newer only; older ones would crash on the first state read.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `offersync: Node.js ${process.versions.node} is too old: it needs Node.js 22 or newer (the image and the tests ` +
      'run Node.js 24). In a clone, `npm install` puts Node.js 24 in node_modules/.bin, which `npx offersync` and ' +
      '`npm run` use.\n',
  );
  process.exit(2);
}

const compiled = new URL('../dist/cli/entry.js', import.meta.url);
const sources = new URL('../src/cli/entry.ts', import.meta.url);
if (existsSync(compiled)) {
  // V8's code for the CLI's modules, kept between starts (in the temp folder, or NODE_COMPILE_CACHE): a start
  // then loads it instead of compiling about 400 files again. Where the folder cannot be written, nothing changes.
  enableCompileCache();
  await import(compiled.href);
} else if (existsSync(sources)) {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write('offersync: dist/ is missing and tsx is not installed: run `npm install` in the clone.\n');
    process.exit(2);
  }
  tsx.register();
  await import(sources.href);
} else {
  process.stderr.write('offersync: dist/ is missing: reinstall the package.\n');
  process.exit(2);
}
