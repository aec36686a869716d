// `offersync daemon` as the end-to-end tests start it: its configuration file and the child process.
import { type ChildProcess, spawn } from 'node:child_process';
import { CLI } from './cli.ts';

/**
 * The offersync.yaml of a daemon against the marketplace at baseUrl: the catalogue and the state db next to the
 * file, a fast rate limit and debounce, its health server on 127.0.0.1:healthPort, then the lines in more.
 */
export function daemonYaml(o: {
  readonly baseUrl: string;
  readonly healthPort: number;
  readonly more?: readonly string[];
}): string {
  return `${[
    `baseUrl: ${o.baseUrl}`,
    'catalogue:\n  dir: ./catalogue',
    'state:\n  path: ./state/state.db',
    'rateLimit:\n  ratePerSec: 100\n  burst: 10',
    'daemon:\n  debounceMs: 100\n  healthHost: 127.0.0.1',
    `  healthPort: ${o.healthPort}`,
    ...(o.more ?? []),
  ].join('\n')}\n`;
}

export interface DaemonProc {
  readonly child: ChildProcess;
  /** All it wrote to stderr so far. */
  stderr(): string;
  /** Its exit code once it exits. */
  readonly exited: Promise<number | null>;
}

/** `offersync daemon --config <config>` as a child process with only env (in cwd if given), its stderr kept. */
export function startDaemon(config: string, env: NodeJS.ProcessEnv, opts: { readonly cwd?: string } = {}): DaemonProc {
  const child = spawn(process.execPath, [...CLI, 'daemon', '--config', config], {
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}
