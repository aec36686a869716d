// The scenario of the pause tests (test/e2e/pause-*.test.ts): a process paused past its writer lease and resumed
// (SIGSTOP, SIGCONT: what Ctrl-Z, `docker pause`, a frozen VM do), while another offersync takes the lease and
// syncs. Each process reaches the marketplace (a sandbox in the test's process) through its own counting proxy, so
// the writes each sent, and when, are known exactly.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { CLI } from './cli.ts';
import { until } from './until.ts';

const KEY = 'pause-test-key-1234';
const ACCOUNTS = 100;

type Phase = 'running' | 'paused' | 'resumed';

/** A proxy in front of the sandbox counting the write requests (not GET) that reach it in each phase. */
interface Proxy {
  readonly url: string;
  phase: Phase;
  readonly writes: Record<Phase, number>;
  close(): Promise<void>;
}

async function countingProxy(target: string): Promise<Proxy> {
  const to = new URL(target);
  const p: Proxy = {
    url: '',
    phase: 'running',
    writes: { running: 0, paused: 0, resumed: 0 },
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') p.writes[p.phase]++;
    const out = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(p, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

interface Proc {
  readonly child: ChildProcess;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

function start(dir: string, config: string, args: readonly string[]): Proc {
  const child = spawn(process.execPath, [...CLI, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH, OFFERSYNC_API_KEY: KEY, OFFERSYNC_CONFIG: join(dir, config) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

/**
 * A config through `baseUrl` (a proxy): the shared catalogue and state db, a TTL of 3 s (a loaded machine may stall
 * a process for a second), a rate of `ratePerSec`.
 */
function writeConfig(dir: string, name: string, baseUrl: string, ratePerSec: number): void {
  writeFileSync(
    join(dir, name),
    [
      `baseUrl: ${baseUrl}`,
      'catalogue:\n  dir: ./catalogue',
      'state:\n  path: ./state/state.db\n  leaseTtlMs: 3000',
      `rateLimit:\n  ratePerSec: ${ratePerSec}\n  burst: 2`,
      'daemon:\n  debounceMs: 100\n  healthPort: 0',
      'log:\n  level: info\n  format: json',
      '',
    ].join('\n'),
  );
}

function writeCatalogue(dir: string, priceStep: number): void {
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
    external_id: `acc-${i}`,
    title: `Account ${i}`,
    price: 1000 + i + priceStep * 100,
    game: 'lol',
  }));
  writeFileSync(join(dir, 'catalogue', 'accounts', 'main.json'), JSON.stringify(accounts));
}

export interface Outcome {
  /** Copies beyond the first of each external_id the marketplace ever made (any status). */
  readonly duplicatesMade: number;
  /** Copies beyond the first still listed at the end. */
  readonly duplicatesLeft: number;
  /** Writes the paused process sent after it resumed. */
  readonly staleWrites: number;
  readonly pausedExit: number | null;
  readonly otherExit: number | null;
  readonly pausedLog: string;
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/**
 * The paused process runs at 20 writes a second, so a backlog waits in its queue when it is stopped. The other runs
 * that slowly only when it must still be syncing as the paused one resumes ('mid'); otherwise it is not what is
 * tested and runs fast.
 */
const PAUSED_RATE = 20;
const OTHER_FAST_RATE = 200;

export async function scenario(o: {
  readonly paused: 'daemon' | 'reconcile';
  /** mid: resumed while the other still syncs; after: once the other finished. */
  readonly resume: 'mid' | 'after';
  readonly duplicatesAllowed: boolean;
  /** The seller changes every price again while the paused one sleeps (the paused one was sending the old). */
  readonly repriced?: boolean;
}): Promise<Outcome> {
  const sandbox: RunningSandbox = await startSandbox({
    apiKeys: [KEY],
    representation: { accountsDuplicateExternalId: o.duplicatesAllowed },
  });
  const dir = mkdtempSync(join(tmpdir(), 'offersync-pause-'));
  mkdirSync(join(dir, 'catalogue', 'accounts'), { recursive: true });
  const a = await countingProxy(sandbox.url);
  const b = await countingProxy(sandbox.url);
  const procs: Proc[] = [];
  cleanup.push(async () => {
    for (const p of procs) {
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
      await p.exited;
    }
    await a.close();
    await b.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });
  writeConfig(dir, 'a.yaml', a.url, PAUSED_RATE);
  writeConfig(dir, 'b.yaml', b.url, o.resume === 'mid' ? PAUSED_RATE : OTHER_FAST_RATE);
  writeCatalogue(dir, 0);
  if (o.repriced) {
    // Everything listed first; the paused run is then a repricing (PATCHes), not creates.
    const first = start(dir, 'b.yaml', ['reconcile']);
    procs.push(first);
    expect(await first.exited).toBe(0);
    writeCatalogue(dir, 1);
    b.writes.running = 0;
  }
  const paused = start(dir, 'a.yaml', o.paused === 'daemon' ? ['daemon'] : ['reconcile']);
  procs.push(paused);
  await until(
    'the first process to send 10 writes',
    () => a.writes.running >= 10 || paused.child.exitCode !== null,
    60_000,
    20,
  );
  expect(paused.child.exitCode, paused.stderr()).toBeNull();
  paused.child.kill('SIGSTOP');
  a.phase = 'paused';
  if (o.repriced) writeCatalogue(dir, 2);
  const other = start(dir, 'b.yaml', ['reconcile', '--lock-timeout', '30s']);
  procs.push(other);
  if (o.resume === 'mid') await until('the other process to send 5 writes', () => b.writes.running >= 5, 60_000, 20);
  else await other.exited;
  a.phase = 'resumed';
  paused.child.kill('SIGCONT');
  const otherExit = await other.exited;
  let pausedExit: number | null;
  if (o.paused === 'daemon') {
    await until('the resumed daemon to notice it lost the lease', () => /lost the writer lease/.test(paused.stderr()));
    paused.child.kill('SIGTERM');
    pausedExit = await paused.exited;
  } else pausedExit = await paused.exited;
  const all = sandbox.dump().accounts as { external_id: string; status: string; price: number | string }[];
  const made = new Map<string, number>();
  const listed = new Map<string, number>();
  for (const r of all) {
    made.set(r.external_id, (made.get(r.external_id) ?? 0) + 1);
    if (r.status === 'listed') listed.set(r.external_id, (listed.get(r.external_id) ?? 0) + 1);
  }
  const beyondFirst = (m: Map<string, number>) => [...m.values()].reduce((n, c) => n + c - 1, 0);
  if (o.repriced) {
    // Every price is the one the seller set last, never the superseded one.
    const prices = new Set(all.map((r) => Number(r.price) - Number(r.external_id.slice(4))));
    expect([...prices]).toEqual([1200]);
  }
  expect(made.size).toBe(ACCOUNTS);
  return {
    duplicatesMade: beyondFirst(made),
    duplicatesLeft: beyondFirst(listed),
    staleWrites: a.writes.resumed,
    pausedExit,
    otherExit,
    pausedLog: paused.stderr(),
  };
}

export function report(name: string, r: Outcome): void {
  console.log(
    `${name}: duplicates made ${r.duplicatesMade}, left ${r.duplicatesLeft}; ` +
      `stale writes after resume ${r.staleWrites}; exits paused ${r.pausedExit}, other ${r.otherExit}`,
  );
}
