// Daemon replicas as child processes on one PostgreSQL and one sandbox (both on 127.0.0.1), for the replica
// proof test and the replica bench: each seller a catalogue of items and a sandbox key of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxOptions } from '../../src/sandbox/sandbox-options.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
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

/** What starting a replica needs of a fleet: its sandbox may be another process, known by its address only. */
export type ReplicaTarget = Pick<Fleet, 'dir' | 'sellers' | 'items' | 'url' | 'ttlMs' | 'ratePerSec'> & {
  readonly sandbox: { readonly url: string };
};

export interface FleetOptions {
  /** The database the replicas share. */
  readonly url: string;
  /** The sellers in the replicas' configuration. */
  readonly sellers: readonly string[];
  /** The sellers whose keys the sandbox knows, each with its items at 100 + i if in `sellers`; all unless told. */
  readonly keyed?: readonly string[];
  readonly items: number;
  readonly ttlMs: number;
  readonly ratePerSec: number;
  /** Names the temporary folder: offersync-<prefix>-. */
  readonly prefix: string;
  readonly sandboxRateLimit?: SandboxOptions['rateLimit'];
}

/** The sandbox and the folder of a fleet, each keyed seller's catalogue written; the replicas are started apart. */
export async function startFleet(o: FleetOptions): Promise<Fleet> {
  const keyed = o.keyed ?? o.sellers;
  const sandbox = await startSandbox({
    apiKeys: keyed.map(sellerKey),
    sellerPerKey: true,
    ...(o.sandboxRateLimit ? { rateLimit: o.sandboxRateLimit } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), `offersync-${o.prefix}-`));
  const fleet: Fleet = {
    dir,
    sellers: o.sellers,
    items: o.items,
    url: o.url,
    sandbox,
    ttlMs: o.ttlMs,
    ratePerSec: o.ratePerSec,
  };
  for (const s of o.sellers) if (keyed.includes(s)) writeItems(fleet, s, 100);
  return fleet;
}

/**
 * Stops the replicas still running (with `signal`), then the sandbox, and removes the folder. With `failed`, each
 * replica's stderr is printed first: what the daemons said is the first thing to read.
 */
export async function stopFleet(
  f: Fleet | undefined,
  procs: readonly ReplicaProc[],
  o: { signal?: NodeJS.Signals; failed?: boolean } = {},
): Promise<void> {
  if (o.failed)
    for (const [i, p] of procs.entries()) console.log(`--- replica ${i + 1} stderr\n${p.stderr().slice(-3000)}`);
  for (const p of procs)
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill(o.signal ?? 'SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await f?.sandbox.close();
  if (f) rmSync(f.dir, { recursive: true, force: true });
}

export function writeItems(f: ReplicaTarget, seller: string, price: number): void {
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

export async function startReplica(f: ReplicaTarget, n: number): Promise<ReplicaProc> {
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
