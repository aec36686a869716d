// Starts sandbox-child.ts and reads it over its control routes (/__sandbox/counters, /__sandbox/dump).
import { spawn } from 'node:child_process';
import type { SandboxOptions } from '../../../src/sandbox/sandbox-options.ts';

export interface SandboxChild {
  readonly url: string;
  readonly pid: number | undefined;
  counters(): Promise<{ total: number; rateLimited: number; byRoute: Record<string, Record<string, number>> }>;
  dump(): Promise<{ items: Record<string, unknown>[] }>;
  stop(): Promise<void>;
}

export async function startSandboxChild(opts: SandboxOptions, startMs = 30_000): Promise<SandboxChild> {
  const script = new URL('./sandbox-child.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(opts)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${out}`)), startMs);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
  });
  const get = async <T>(path: string): Promise<T> => (await fetch(`${url}/__sandbox/${path}`)).json() as Promise<T>;
  return {
    url,
    pid: child.pid,
    counters: () => get('counters'),
    dump: () => get('dump'),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
