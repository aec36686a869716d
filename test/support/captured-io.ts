// The CLI's io for tests that run a command in this process: what it prints is kept in memory to be read back,
// so a test can look at this process too (Object.prototype, the sandbox it started) without a child process.
import type { CliIO } from '../../src/cli/command.ts';
import { main } from '../../src/cli/main.ts';
import type { CliRun } from './cli.ts';

export interface CapturedIo extends CliIO {
  /** All the command wrote to stdout so far. */
  out(): string;
  /** All the command wrote to stderr so far. */
  err(): string;
}

/** An io whose stdout and stderr are strings; stdout says it is a terminal only when tty is set. */
export function capturedIo(
  opts: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly tty?: boolean } = {},
): CapturedIo {
  let out = '';
  let err = '';
  const stdout = {
    write: (s: string) => {
      out += s;
      return true;
    },
    isTTY: opts.tty ?? false,
  } as unknown as CliIO['stdout'];
  const stderr = {
    write: (s: string) => {
      err += s;
      return true;
    },
  } as unknown as CliIO['stderr'];
  return { stdout, stderr, env: opts.env ?? {}, cwd: opts.cwd ?? process.cwd(), out: () => out, err: () => err };
}

export interface CapturedRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** `offersync ...argv` run through main in this process, with its exit code and what it printed. */
export async function mainCaptured(
  argv: readonly string[],
  opts: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {},
): Promise<CapturedRun> {
  const io = capturedIo(opts);
  const code = await main([...argv], io);
  return { code, out: io.out(), err: io.err() };
}

/**
 * `offersync ...args` through main in this process, in the shape runCli gives for a child process: for tests of
 * what a command prints, writes and sends, where the process (its start, signals, exit) is not what is tested.
 */
export async function runMain(
  args: readonly string[],
  opts: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
): Promise<CliRun> {
  const r = await mainCaptured(args, opts);
  return { code: r.code, stdout: r.out, stderr: r.err };
}
