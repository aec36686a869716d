// `offersync sandbox` as a child process on 127.0.0.1 (on a port it picks), for the tests and benches that run the
// CLI against a sandbox in a process of its own, as a seller would.
import { type ChildProcess, spawn } from 'node:child_process';
import { CLI } from './cli.ts';

export interface SandboxProcess {
  /** http://127.0.0.1:<port>, as the sandbox printed it. */
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGTERM: the sandbox exits 0. */
  stop(): void;
}

/** Starts the sandbox knowing one API key; fails after startMs if it printed no address. */
export async function startSandboxProcess(
  key: string,
  startMs = 20_000,
  /** More `offersync sandbox` flags (--rate, --burst, ...). */
  flags: readonly string[] = [],
  /** node arguments before the command: the built bin, for a bench of the package as shipped. */
  cli: readonly string[] = CLI,
): Promise<SandboxProcess> {
  const child = spawn(process.execPath, [...cli, 'sandbox', '--port', '0', '--api-key', key, ...flags], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${out}`)), startMs);
    timer.unref();
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
  });
  return { url, child, stop: () => child.kill('SIGTERM') };
}
