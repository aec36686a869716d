#!/usr/bin/env node
// The installed command: runs the compiled CLI in dist/ (`npm run build`; `npm pack` builds it first).
// In a clone, `npm run dev -- <command>` runs the TypeScript sources through tsx instead, with no build.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/entry.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'offersync: dist/ is missing: run `npm run build` first, or `npm run dev -- <command>` to run the sources.\n',
  );
  process.exit(2);
}
await import(entry.href);
