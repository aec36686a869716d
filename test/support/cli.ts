// The CLI as tests and benches start it: the TypeScript sources through tsx, so `npm test` needs no build.
// The compiled bin (bin/offersync.js -> dist) is checked by .ci/pack-check on a packed and installed tarball.
import { fileURLToPath } from 'node:url';

export const CLI_ENTRY = fileURLToPath(new URL('../../src/cli/entry.ts', import.meta.url));
/** tsx's loader by path: `--import tsx` would resolve from the child's working directory. */
const TSX_LOADER = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/** node arguments before the command: spawn(process.execPath, [...CLI, 'reconcile', ...]). */
export const CLI: readonly string[] = ['--import', TSX_LOADER, CLI_ENTRY];
