// The soak under faults: the daemon as a child process against the sandbox as a child process, both
// on 127.0.0.1, for a bounded time. Random catalogue edits (creates, price and title changes, removals, files
// moved and renamed), injected 5xx, dropped connections, responses lost after the write, 429 storms, SIGKILL and
// restart of the daemon, and sales on the sandbox (accounts whole, units of items and top-ups). Then, with faults
// off, one `offersync reconcile` and the checks: remote equals the catalogue (minus what was sold), no unit sold is
// ever put back on sale, no external_id twice, every offer mapped in the state db, the journal settled, and a
// further reconcile writes nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { CLI } from '../support/cli.ts';

const KEY = 'soak-key-4242';

export interface SoakOptions {
  readonly durationMs: number;
  readonly seed: number;
  /** Progress lines; default none. */
  readonly log?: (line: string) => void;
  /** Keep the working directory (catalogue, state db, daemon log) for a look afterwards. */
  readonly keep?: boolean;
  /** node arguments that start the CLI; default the sources through tsx (test/support/cli.ts). */
  readonly cli?: readonly string[];
  /** The daemon's log level (its log is daemon.log in the working directory). Default warn. */
  readonly logLevel?: string;
}

export interface SoakResult {
  /** What was done and survived, by name. */
  readonly counts: Readonly<Record<string, number>>;
  /** Every broken promise found at the end; empty when the soak passed. */
  readonly violations: readonly string[];
  readonly dir: string;
}

type Kind = 'account' | 'item' | 'topup';
const KINDS: readonly Kind[] = ['account', 'item', 'topup'];
const FOLDER: Readonly<Record<Kind, string>> = { account: 'accounts', item: 'items', topup: 'top-ups' };
const RESOURCE: Readonly<Record<Kind, 'accounts' | 'items' | 'topUps'>> = {
  account: 'accounts',
  item: 'items',
  topup: 'topUps',
};
/** Each kind in a different format, so every parser is in the loop. */
const EXT: Readonly<Record<Kind, string>> = { account: 'json', item: 'ndjson', topup: 'csv' };

interface Offer {
  readonly externalId: string;
  title: string;
  price: number;
  count: number;
}

interface CatalogueFile {
  readonly kind: Kind;
  path: string;
  readonly offers: Offer[];
}

type Dump = Readonly<Record<'accounts' | 'items' | 'topUps', readonly Record<string, unknown>[]>>;

class Random {
  constructor(private state: number) {}
  next(): number {
    // mulberry32
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Prices stay within a factor of 10 of each other, so no new offer is ever held as priced under a tenth of its
 * peers' median (a likely typo), and a run always converges.
 */
const MIN_PRICE = 1000;
const MAX_PRICE = 9000;

export async function runSoak(opts: SoakOptions): Promise<SoakResult> {
  const log = opts.log ?? (() => undefined);
  const cli = opts.cli ?? CLI;
  const rnd = new Random(opts.seed);
  const dir = mkdtempSync(join(tmpdir(), 'offersync-soak-'));
  const catDir = join(dir, 'catalogue');
  const counts: Record<string, number> = {
    'catalogue edits': 0,
    'offers created in the catalogue': 0,
    'price or title changes': 0,
    'offers removed': 0,
    'files moved or renamed': 0,
    'fault windows': 0,
    '429 storms': 0,
    'daemon SIGKILLs': 0,
    sales: 0,
    'unit sales': 0,
    'units sold': 0,
  };
  const violations: string[] = [];
  const children = new Set<ChildProcess>();
  let sandbox: { url: string; child: ChildProcess } | undefined;
  let daemon: ChildProcess | undefined;

  // --- the catalogue, in memory and on disk -----------------------------------------------------------
  const files: CatalogueFile[] = [];
  let nextId = 0;
  let nextFile = 0;
  const newOffer = (kind: Kind): Offer => {
    const n = nextId++;
    const price = MIN_PRICE + rnd.int(0, MAX_PRICE - MIN_PRICE);
    return { externalId: `${kind}-${n}`, title: `${kind} ${n}`, price, count: rnd.int(1, 50) };
  };
  const render = (f: CatalogueFile): string => {
    switch (f.kind) {
      case 'account':
        return JSON.stringify(
          f.offers.map((o) => ({ external_id: o.externalId, title: o.title, price: o.price, level: o.count })),
          null,
          1,
        );
      case 'item':
        return f.offers
          .map((o) => JSON.stringify({ external_id: o.externalId, title: o.title, price: o.price, stock: o.count }))
          .join('\n');
      case 'topup':
        return ['external_id,offer_title,price,offer_amount,stock']
          .concat(f.offers.map((o) => `${o.externalId},"${o.title}",${o.price},${o.count},${o.count}`))
          .join('\r\n');
      default:
        return f.kind satisfies never;
    }
  };
  // Written beside under a dotfile name, then renamed: the watcher ignores dotfiles and sees one whole file.
  const save = (f: CatalogueFile): void => {
    const full = join(catDir, f.path);
    mkdirSync(dirname(full), { recursive: true });
    const tmp = join(dirname(full), `.${process.pid}.tmp`);
    writeFileSync(tmp, render(f));
    renameSync(tmp, full);
  };
  const newFile = (kind: Kind, offers: Offer[]): CatalogueFile => {
    const f = { kind, path: `${FOLDER[kind]}/f${nextFile++}.${EXT[kind]}`, offers };
    files.push(f);
    return f;
  };
  for (const kind of KINDS)
    for (let i = 0; i < 4; i++)
      save(
        newFile(
          kind,
          Array.from({ length: 8 }, () => newOffer(kind)),
        ),
      );

  const allOffers = (): { file: CatalogueFile; offer: Offer }[] =>
    files.flatMap((file) => file.offers.map((offer) => ({ file, offer })));

  // Small steps, so that the mass-archive guard (half of the managed offers; 10%, at least 25) never trips, and
  // prices that move by less than a factor of 3, so that the price guard never does.
  const edit = (): void => {
    counts['catalogue edits']!++;
    const what = rnd.pick(['create', 'create', 'change', 'change', 'remove', 'move'] as const);
    if (what === 'create') {
      const kind = rnd.pick(KINDS);
      const n = rnd.int(1, 4);
      const same = files.filter((f) => f.kind === kind);
      const target = same.length > 0 && rnd.chance(0.8) ? rnd.pick(same) : newFile(kind, []);
      for (let i = 0; i < n; i++) target.offers.push(newOffer(kind));
      counts['offers created in the catalogue']! += n;
      save(target);
    } else if (what === 'change') {
      const touched = new Set<CatalogueFile>();
      for (let i = rnd.int(1, 5); i > 0; i--) {
        const all = allOffers();
        if (all.length === 0) break;
        const { file, offer } = rnd.pick(all);
        if (rnd.chance(0.7))
          offer.price = Math.min(MAX_PRICE, Math.max(MIN_PRICE, Math.round((offer.price * rnd.int(50, 200)) / 100)));
        else offer.title = `${offer.title.split(' #')[0]} #${rnd.int(1, 999)}`;
        touched.add(file);
        counts['price or title changes']!++;
      }
      for (const f of touched) save(f);
    } else if (what === 'remove') {
      const all = allOffers();
      for (let i = Math.min(all.length, rnd.int(1, 3)); i > 0; i--) {
        const live = allOffers();
        const { file, offer } = rnd.pick(live);
        file.offers.splice(file.offers.indexOf(offer), 1);
        save(file);
        counts['offers removed']!++;
      }
    } else {
      const f = rnd.pick(files);
      const from = join(catDir, f.path);
      const sub = rnd.chance(0.5) ? `moved${rnd.int(1, 3)}/` : '';
      f.path = `${FOLDER[f.kind]}/${sub}r${nextFile++}.${EXT[f.kind]}`;
      mkdirSync(dirname(join(catDir, f.path)), { recursive: true });
      renameSync(from, join(catDir, f.path));
      counts['files moved or renamed']!++;
    }
  };

  // --- processes -----------------------------------------------------------------------------------
  const startSandbox = (): Promise<{ url: string; child: ChildProcess }> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [...cli, 'sandbox', '--port', '0', '--api-key', KEY, '--latency', '2', '--seed', String(opts.seed)],
        { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      children.add(child);
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/[^;\s]+)/.exec(out);
        if (m) resolve({ url: m[1]!, child });
      });
      child.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before listening: ${out}`)));
    });

  const daemonLog = join(dir, 'daemon.log');
  const startDaemon = (): ChildProcess => {
    const fd = openSync(daemonLog, 'a');
    const child = spawn(process.execPath, [...cli, 'daemon', '--config', join(dir, 'offersync.yaml')], {
      env: { PATH: process.env.PATH, OFFERSYNC_API_KEY: KEY, OFFERSYNC_LOG_LEVEL: opts.logLevel ?? 'warn' },
      stdio: ['ignore', 'ignore', fd],
    });
    closeSync(fd);
    children.add(child);
    child.on('exit', () => children.delete(child));
    return child;
  };
  const exited = (child: ChildProcess, ms: number): Promise<boolean> =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve(true)
      : new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), ms);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve(true);
          });
        });

  const runCli = (args: string[]): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [...cli, ...args, '--config', join(dir, 'offersync.yaml')], {
        env: { PATH: process.env.PATH, OFFERSYNC_API_KEY: KEY, OFFERSYNC_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.add(child);
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => {
        children.delete(child);
        resolve({ code, stderr });
      });
    });

  const control = async (path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${sandbox!.url}/__sandbox/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
    if (!res.ok) throw new Error(`sandbox control ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };

  try {
    sandbox = await startSandbox();
    writeFileSync(
      join(dir, 'offersync.yaml'),
      `${[
        `baseUrl: ${sandbox.url}`,
        'catalogue:\n  dir: ./catalogue',
        'state:\n  path: ./state/state.db\n  leaseTtlMs: 1000\n  keepRuns: 50',
        'http:\n  timeoutMs: 5000',
        'rateLimit:\n  ratePerSec: 200\n  burst: 20',
        'bulk:\n  removeSize: 4\n  topUpUpdateSize: 4',
        // A full sweep every 20 s notices sales; an incremental tick every 5 s retries what a fault failed.
        'schedule:\n  fullSweep: "*/20 * * * * *"\n  tick: "*/5 * * * * *"',
        'daemon:\n  debounceMs: 150\n  healthPort: 0',
      ].join('\n')}\n`,
    );
    daemon = startDaemon();
    // The clock starts once the daemon's first sync is done: a loaded machine can take many seconds to start it.
    const initial = allOffers().length;
    for (const until = Date.now() + 180_000; ; await sleep(200)) {
      const d = (await control('dump')) as Dump;
      if (d.accounts.length + d.items.length + d.topUps.length >= initial) break;
      if (Date.now() > until)
        throw new Error(`the daemon did not sync the first catalogue in 180 s: ${tail(daemonLog)}`);
    }

    // --- the soak ----------------------------------------------------------------------------------
    const started = Date.now();
    const end = started + opts.durationMs;
    let faultsUntil = 0;
    let stormUntil = 0;
    let lastKill = started;
    let nextReport = started + 30_000;
    while (Date.now() < end) {
      await sleep(rnd.int(100, 900));
      const now = Date.now();
      if (faultsUntil && now > faultsUntil) {
        await control('faults', { latencyMs: 2 });
        faultsUntil = 0;
      }
      if (stormUntil && now > stormUntil) {
        await control('rate-limit', null);
        stormUntil = 0;
      }
      if (now > nextReport) {
        log(`soak: ${Math.round((now - started) / 1000)} s, ${JSON.stringify(counts)}`);
        nextReport += 30_000;
      }
      const r = rnd.next();
      if (r < 0.55) edit();
      else if (r < 0.65 && !faultsUntil) {
        await control('faults', {
          errorRate: rnd.int(5, 30) / 100,
          dropRate: rnd.int(0, 10) / 100,
          lostResponseRate: rnd.int(0, 15) / 100,
          latencyMs: 2,
          seed: rnd.int(1, 1e6),
        });
        faultsUntil = now + rnd.int(1000, 5000);
        counts['fault windows']!++;
      } else if (r < 0.7 && !stormUntil) {
        // Without rate-limit headers: an advertised rate is taken as the marketplace's own and kept after the
        // storm, which would slow the rest of the soak down to the storm's rate.
        await control('rate-limit', { ratePerSec: rnd.int(1, 5), burst: rnd.int(1, 3), headers: 'none' });
        stormUntil = now + rnd.int(1000, 4000);
        counts['429 storms']!++;
      } else if (r < 0.8) {
        const dump = (await control('dump')) as Dump;
        const forSale = dump.accounts.filter((a) => a.status === 'listed');
        if (forSale.length > 0) {
          const a = rnd.pick(forSale);
          await control('status', { kind: 'accounts', identifier: Number(a.id), status: 'sold' });
          counts.sales!++;
        }
      } else if (r < 0.86) {
        // A buyer takes units of an item or top-up: sold_count rises, stock falls.
        const dump = (await control('dump')) as Dump;
        const forSale = [
          ...dump.items.map((o) => ['items', o] as const),
          ...dump.topUps.map((o) => ['top-ups', o] as const),
        ].filter(([, o]) => o.status === 'listed' && typeof o.stock === 'number' && o.stock > 0);
        if (forSale.length > 0) {
          const [kind, o] = rnd.pick(forSale);
          const quantity = rnd.int(1, Math.min(3, Number(o.stock)));
          await control('sell', { kind, identifier: Number(o.id), quantity });
          counts['unit sales']!++;
          counts['units sold']! += quantity;
        }
      } else if (r < 0.94 && now - lastKill > 5000) {
        // Not more often than every 5 s: a restarted daemon needs a moment to get back to work.
        lastKill = now;
        daemon.kill('SIGKILL');
        await exited(daemon, 10_000);
        counts['daemon SIGKILLs']!++;
        await sleep(rnd.int(50, 1000));
        daemon = startDaemon();
      }
    }

    // --- faults off, one last reconcile, the checks ---------------------------------------------------
    await control('faults', {});
    await control('rate-limit', null);
    daemon.kill('SIGTERM');
    if (!(await exited(daemon, 60_000))) {
      violations.push('the daemon did not stop within 60 s of SIGTERM');
      daemon.kill('SIGKILL');
      await exited(daemon, 10_000);
    }
    const faultCounts = tally((await control('counters')) as Counters);
    Object.assign(counts, faultCounts);
    log('soak: faults off, daemon stopped; final reconcile');
    const last = await runCli(['reconcile']);
    if (last.code !== 0) violations.push(`the final reconcile exited ${last.code}: ${last.stderr.slice(-2000)}`);

    const dump = (await control('dump')) as Dump;
    violations.push(...checkRemote(dump, files));
    violations.push(...checkUnitsSold(dump, files));
    violations.push(...(await checkState(join(dir, 'state', 'state.db'), dump, files)));

    await control('reset-counters', {});
    const again = await runCli(['reconcile']);
    const after = (await control('counters')) as Counters;
    if (again.code !== 0) violations.push(`a further reconcile exited ${again.code}: ${again.stderr.slice(-2000)}`);
    if (after.writes !== 0) violations.push(`a further reconcile wrote ${after.writes} time(s)`);
    counts['offers in the catalogue at the end'] = allOffers().length;
    counts['offers on the marketplace at the end'] = dump.accounts.length + dump.items.length + dump.topUps.length;
    return { counts, violations, dir };
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await Promise.all([...children].map((c) => exited(c, 10_000)));
    if (!opts.keep && violations.length === 0) rmSync(dir, { recursive: true, force: true });
    else if (violations.length > 0) log(`soak: left ${dir} for a look (daemon log: ${daemonLog})`);
  }
}

interface Counters {
  readonly total: number;
  readonly writes: number;
  readonly rateLimited: number;
  readonly byRoute: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** Faults the client met, from the sandbox's counters. */
function tally(c: Counters): Record<string, number> {
  const out = { requests: c.total, 'answers 5xx': 0, 'dropped connections': 0, 'lost responses': 0, 'answers 429': 0 };
  for (const byStatus of Object.values(c.byRoute))
    for (const [status, n] of Object.entries(byStatus)) {
      if (status === 'dropped') out['dropped connections'] += n;
      else if (status === 'lost') out['lost responses'] += n;
      else if (status === '429') out['answers 429'] += n;
      else if (/^5\d\d$/.test(status)) out['answers 5xx'] += n;
    }
  return out;
}

const LOCKED = new Set(['sold', 'refunded', 'processing']);

function checkRemote(dump: Dump, files: readonly CatalogueFile[]): string[] {
  const out: string[] = [];
  for (const kind of KINDS) {
    const rows = dump[RESOURCE[kind]];
    const byExternal = new Map<string, Record<string, unknown>>();
    for (const r of rows) {
      const id = String(r.external_id);
      if (byExternal.has(id)) out.push(`${kind} ${id} is on the marketplace twice`);
      byExternal.set(id, r);
    }
    const wanted = new Map(files.filter((f) => f.kind === kind).flatMap((f) => f.offers.map((o) => [o.externalId, o])));
    for (const [id, o] of wanted) {
      const r = byExternal.get(id);
      if (!r) out.push(`${kind} ${id} is in the catalogue but not on the marketplace`);
      else if (LOCKED.has(String(r.status)))
        continue; // sold: the marketplace's now
      else if (r.status === 'archived') out.push(`${kind} ${id} is in the catalogue but archived`);
      else {
        const title = kind === 'topup' ? r.offer_title : r.title;
        if (Number(r.price) !== o.price) out.push(`${kind} ${id}: price ${String(r.price)}, catalogue ${o.price}`);
        if (title !== o.title) out.push(`${kind} ${id}: title '${String(title)}', catalogue '${o.title}'`);
      }
    }
    for (const [id, r] of byExternal) {
      if (!wanted.has(id) && r.status !== 'archived' && !LOCKED.has(String(r.status)))
        out.push(`${kind} ${id} was removed from the catalogue but is still ${String(r.status)}`);
    }
  }
  return out;
}

/** No unit sold is ever put back on sale: the stock listed never exceeds the catalogue's less the units sold. */
function checkUnitsSold(dump: Dump, files: readonly CatalogueFile[]): string[] {
  const out: string[] = [];
  for (const kind of ['item', 'topup'] as const) {
    const byExternal = new Map(dump[RESOURCE[kind]].map((r) => [String(r.external_id), r]));
    for (const f of files.filter((x) => x.kind === kind))
      for (const o of f.offers) {
        const r = byExternal.get(o.externalId);
        if (!r || typeof r.stock !== 'number') continue;
        const sold = Number(r.sold_count ?? 0);
        if (r.stock + sold > o.count)
          out.push(
            `${kind} ${o.externalId}: ${sold} unit(s) sold of a catalogue stock of ${o.count}, yet ${r.stock} ` +
              'listed: sold units were put back on sale',
          );
      }
  }
  return out;
}

async function checkState(statePath: string, dump: Dump, files: readonly CatalogueFile[]): Promise<string[]> {
  const out: string[] = [];
  const store = await openStateStore(statePath);
  try {
    const byKey = new Map((await store.listOffers()).map((o) => [`${o.kind}:${o.externalId}`, o]));
    for (const kind of KINDS) {
      const remote = new Map(dump[RESOURCE[kind]].map((r) => [String(r.external_id), Number(r.id)]));
      for (const f of files.filter((x) => x.kind === kind))
        for (const o of f.offers) {
          const rec = byKey.get(`${kind}:${o.externalId}`);
          if (rec?.remoteId !== remote.get(o.externalId))
            out.push(
              `${kind} ${o.externalId} is mapped to ${rec?.remoteId}, the marketplace has it as ` +
                `${remote.get(o.externalId)}`,
            );
        }
    }
    const unfinished = await store.journalUnfinished();
    if (unfinished.length > 0) out.push(`${unfinished.length} journal entries are left unfinished`);
    const runs = (await store.listRuns(1000)).length;
    if (runs > 50) out.push(`the state db keeps ${runs} runs, more than state.keepRuns (50)`);
  } finally {
    await store.close();
  }
  return out;
}

/** Reads a file the soak left, for the report of a failure. */
export function tail(path: string, bytes = 4000): string {
  try {
    const s = readFileSync(path, 'utf8');
    return s.slice(-bytes);
  } catch {
    return '';
  }
}
