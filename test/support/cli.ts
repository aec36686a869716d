// The CLI as tests and benches start it. Under vitest, the package built once from the sources
// (test/support/built-cli.ts: bin/offersync.js and dist/, as installed); elsewhere (benches, the soak), the
// TypeScript sources through tsx, so nothing needs a build.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_CLI_ENV, ensureBuilt } from './built-cli.ts';

const CLI_ENTRY = fileURLToPath(new URL('../../src/cli/entry.ts', import.meta.url));
/** tsx's loader by path: `--import tsx` would resolve from the child's working directory. */
const TSX_LOADER = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const BUILT = process.env[BUILT_CLI_ENV];
if (BUILT) ensureBuilt(BUILT);

/** node arguments before the command: spawn(process.execPath, [...CLI, 'reconcile', ...]). */
export const CLI: readonly string[] = BUILT ? [BUILT] : ['--import', TSX_LOADER, CLI_ENTRY];

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The CLI run to its exit as a child process, with what it printed. Killed after timeoutMs, so a command that
 * hangs fails its test with what it had printed instead of holding the suite.
 */
export function runCli(
  args: readonly string[],
  opts: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly timeoutMs?: number },
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The environment of a CLI run with no configuration file: the marketplace at baseUrl with one key, the catalogue
 * in <dir>/catalogue and the state db in <dir>/state, and only PATH from this process. Without logLevel the CLI
 * logs at its own default.
 */
export function cliEnv(
  o: { readonly dir: string; readonly baseUrl: string; readonly apiKey: string; readonly logLevel?: string },
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    OFFERSYNC_BASE_URL: o.baseUrl,
    OFFERSYNC_API_KEY: o.apiKey,
    OFFERSYNC_CATALOGUE_DIR: join(o.dir, 'catalogue'),
    OFFERSYNC_STATE_DB: join(o.dir, 'state', 'state.db'),
    ...(o.logLevel === undefined ? {} : { OFFERSYNC_LOG_LEVEL: o.logLevel }),
    ...extra,
  };
}
