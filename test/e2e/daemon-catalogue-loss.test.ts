// A running daemon whose catalogue is caught mid-save or vanishes for a while archives nothing: a file emptied for
// a moment (a shell's `>`, rsync --inplace, a sync client) is quarantined until it is written again, and a catalogue
// folder removed and restored is watched again, its later edits synced.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { type DaemonProc, daemonYaml, startDaemon } from '../support/daemon-process.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/until.ts';

const KEY = 'daemon-loss-key-77';

let sandbox: RunningSandbox;
let dir: string;
let port: number;
let daemon: DaemonProc | undefined;

const accounts = (price: number) =>
  JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ external_id: `acc-${i}`, title: `A ${i}`, price })));
const items = (price: number) =>
  JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ external_id: `it-${i}`, title: `I ${i}`, price })));
const write = (rel: string, text: string) => writeFileSync(join(dir, 'catalogue', rel), text);
/** Archive requests of every route the sandbox counted. */
const archives = () =>
  Object.entries(sandbox.counters().byRoute)
    .filter(([route]) => route.startsWith('DELETE') || route.includes('bulk-remove'))
    .reduce((n, [, byStatus]) => n + Object.values(byStatus).reduce((a, b) => a + b, 0), 0);
const priceOf = (kind: 'accounts' | 'items', id: string) =>
  sandbox.dump()[kind].find((o) => o.external_id === id)?.price;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-daemon-loss-'));
  for (const sub of ['accounts', 'items']) mkdirSync(join(dir, 'catalogue', sub), { recursive: true });
  port = await freePort();
  writeFileSync(join(dir, 'offersync.yaml'), daemonYaml({ baseUrl: sandbox.url, healthPort: port }));
});

afterAll(async () => {
  daemon?.child.kill('SIGKILL');
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a daemon whose catalogue is caught mid-save or vanishes', { timeout: 120_000 }, () => {
  it('archives nothing, and syncs the files once they are back', async () => {
    write('accounts/a.json', accounts(5000));
    write('items/b.json', items(100));
    daemon = startDaemon(join(dir, 'offersync.yaml'), {
      PATH: process.env.PATH,
      OFFERSYNC_API_KEY: KEY,
      OFFERSYNC_LOG_LEVEL: 'warn',
    });
    await until('the first run', () => sandbox.dump().items.length === 50 || undefined, 60_000, 50);

    // Emptied for 1.5 s, then written again with one change.
    write('accounts/a.json', '');
    await new Promise((r) => setTimeout(r, 1500));
    write('accounts/a.json', accounts(5100));
    await until('the rewritten file synced', () => priceOf('accounts', 'acc-0') === 5100 || undefined, 30_000, 50);
    expect(archives()).toBe(0);

    // The whole catalogue folder gone for a while, then back with an edit.
    rmSync(join(dir, 'catalogue'), { recursive: true });
    await new Promise((r) => setTimeout(r, 3000));
    for (const sub of ['accounts', 'items']) mkdirSync(join(dir, 'catalogue', sub), { recursive: true });
    write('accounts/a.json', accounts(5100));
    write('items/b.json', items(200));
    await until('the restored folder synced', () => priceOf('items', 'it-0') === 200 || undefined, 30_000, 50);
    // And watched again: a later edit is synced too.
    write('items/b.json', items(300));
    await until('a later edit synced', () => priceOf('items', 'it-0') === 300 || undefined, 30_000, 50);
    expect(archives()).toBe(0);
    expect(sandbox.dump().accounts.every((a) => a.status === 'listed')).toBe(true);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited, daemon.stderr()).toBe(0);
  });
});
