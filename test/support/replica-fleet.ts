// Daemon replicas as child processes on one PostgreSQL and one sandbox (both on 127.0.0.1), for the replica
// proof test and the replica bench: each seller a catalogue of items and a sandbox key of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { CLI } from './cli.ts';
import { freePort } from './ports.ts';

export interface Fleet {
  readonly dir: string;
  readonly sellers: readonly string[];
  readonly items: number;
  readonly url: string;
  readonly sandbox: RunningSandbox;
  readonly ttlMs: number;
  readonly ratePerSec: number;
}

export interface ReplicaProc {
  readonly child: ChildProcess;
  readonly port: number;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

export interface Ready {
  readonly ready: boolean;
  readonly replica: string;
  readonly held: string[];
}

export const sellerKey = (s: string) => `key-${s}-0123`;

export function writeItems(f: Fleet, seller: string, price: number): void {
  mkdirSync(join(f.dir, 'cat', seller, 'items'), { recursive: true });
  writeFileSync(
    join(f.dir, 'cat', seller, 'items', 'stock.json'),
    JSON.stringify(
      Array.from({ length: f.items }, (_, i) => ({
        external_id: `${seller}-item-${i}`,
        title: `${seller} item ${i}`,
        price: price + i,
        stock: 1,
        type: 'skin',
      })),
    ),
  );
}

export async function startReplica(f: Fleet, n: number): Promise<ReplicaProc> {
  const port = await freePort();
  const config = join(f.dir, `replica-${n}.yaml`);
  writeFileSync(
    config,
    [
      `baseUrl: ${f.sandbox.url}`,
      'state:',
      `  path: ./state-${n}/state.db`,
      `  leaseTtlMs: ${f.ttlMs}`,
      `rateLimit: { ratePerSec: ${f.ratePerSec}, burst: 20 }`,
      `daemon: { debounceMs: 100, healthHost: 127.0.0.1, healthPort: ${port} }`,
      'sellers:',
      ...f.sellers.flatMap((s) => [`  - id: ${s}`, `    catalogue: ./cat/${s}`, `    apiKeyEnv: KEY_${envName(s)}`]),
      '',
    ].join('\n'),
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    OFFERSYNC_STATE_URL: f.url,
    OFFERSYNC_LOG_LEVEL: 'info',
    // A bench may profile the replicas (--cpu-prof).
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  };
  for (const s of f.sellers) env[`KEY_${envName(s)}`] = sellerKey(s);
  const child = spawn(process.execPath, [...CLI, 'daemon', '--config', config], {
    cwd: f.dir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, port, stderr: () => err, exited };
}

function envName(seller: string): string {
  return seller.toUpperCase().replaceAll('-', '_');
}

export async function readyz(p: ReplicaProc): Promise<Ready | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${p.port}/readyz`);
    return (await res.json()) as Ready;
  } catch {
    return undefined;
  }
}

/** Every seller's items on the sandbox at `price` + i. */
export function converged(f: Fleet, price: number): boolean {
  const items = new Map(f.sandbox.dump().items.map((o) => [String(o.external_id), Number(o.price)]));
  return f.sellers.every((s) => {
    for (let i = 0; i < f.items; i++) if (items.get(`${s}-item-${i}`) !== price + i) return false;
    return true;
  });
}
