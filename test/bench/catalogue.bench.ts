// Catalogue load and reload. Goals: 100k offers across formats load and validate in under 2 s, holding
// little (the heap the loaded catalogue keeps is printed, in MB and bytes per offer); re-parse after one changed
// file among 10k files in under 50 ms; a CSV file of 25k, 50k and 100k columns loads in time linear in its size
// (the time per 1,000 columns stays flat). Checks its own results; exits non-zero only when they are wrong, never on
// time (machines are noisy).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { makePng } from '../support/png.ts';

const N = Number(process.env.BENCH_OFFERS ?? 100_000);
const root = mkdtempSync(join(tmpdir(), 'offersync-bench-cat-'));
let failed = false;
const check = (ok: boolean, what: string): void => {
  if (!ok) {
    failed = true;
    process.stdout.write(`WRONG: ${what}\n`);
  }
};

function account(i: number): Record<string, unknown> {
  return {
    external_id: `acc-${i}`,
    title: `EUW Gold account ${i}`,
    price: 1000 + (i % 5000) + 0.99,
    rank: 'Gold II',
    level: 30 + (i % 200),
    champions: ['Ahri', 'Lux', 'Jinx'],
    credentials: { login: `login-${i}`, password: `pw-${i}` },
    ...(i % 10 === 0 ? { images: [`images/p${i % 3}.png`] } : {}),
    description: 'Hand-levelled account, no bans, email changeable.',
  };
}
const item = (i: number): Record<string, unknown> => ({
  external_id: `item-${i}`,
  title: `Skin code ${i}`,
  price: 500 + (i % 900),
  type: 'skin',
  stock: i % 7,
});
const topup = (i: number): Record<string, unknown> => ({
  external_id: `tu-${i}`,
  offer_title: `${i} gems`,
  offer_amount: 100 + i,
  price: '9.49',
  region: 'eu',
  waiting_time_value: 15,
  waiting_time_unit: 'minutes',
  active: true,
});

/**
 * 100k offers: accounts in JSON (40%) and CSV (10%), items in YAML (10%) and NDJSON (15%), top-ups in NDJSON (15%) and
 * CSV (10%).
 */
function writeMixed(dir: string, n: number): void {
  for (const d of ['accounts', 'items', 'top-ups', 'images']) mkdirSync(join(dir, d), { recursive: true });
  for (let p = 0; p < 3; p++) writeFileSync(join(dir, `images/p${p}.png`), makePng(16, 16, [p * 80, 100, 200]));
  const per = 1000;
  let i = 0;
  const chunked = (count: number, write: (from: number, to: number, file: number) => void): void => {
    for (let f = 0; f * per < count; f++) write(i + f * per, i + Math.min(count, (f + 1) * per), f);
    i += count;
  };
  chunked(n * 0.4, (a, b, f) =>
    writeFileSync(join(dir, `accounts/a${f}.json`), JSON.stringify(range(a, b).map(account), null, 1)),
  );
  chunked(n * 0.1, (a, b, f) => {
    const rows = [
      'external_id,title,price,current_rank,current_division,level,champions,credentials.login,credentials.password',
    ];
    for (const k of range(a, b))
      rows.push(
        `acc-${k},"Account ${k}, NA",${(10 + (k % 90)).toFixed(2)},platinum,I,${k % 300},Ahri|Yasuo,login-${k},pw-${k}`,
      );
    writeFileSync(join(dir, `accounts/c${f}.csv`), `${rows.join('\r\n')}\r\n`);
  });
  chunked(n * 0.1, (a, b, f) => {
    const docs = range(a, b).map(
      (k) =>
        `- external_id: item-${k}\n  title: "Skin code ${k}"\n  price: ${500 + (k % 900)}\n  type: skin\n  stock: ` +
        `${k % 7}\n`,
    );
    writeFileSync(join(dir, `items/y${f}.yaml`), docs.join(''));
  });
  chunked(n * 0.15, (a, b, f) =>
    writeFileSync(
      join(dir, `items/n${f}.ndjson`),
      `${range(a, b)
        .map((k) => JSON.stringify(item(k)))
        .join('\n')}\n`,
    ),
  );
  chunked(n * 0.15, (a, b, f) =>
    writeFileSync(
      join(dir, `top-ups/n${f}.jsonl`),
      `${range(a, b)
        .map((k) => JSON.stringify(topup(k)))
        .join('\n')}\n`,
    ),
  );
  chunked(n * 0.1, (a, b, f) => {
    const rows = ['external_id,offer_title,offer_amount,price,region,waiting_time_value,waiting_time_unit,active'];
    for (const k of range(a, b)) rows.push(`tu-${k},${k} coins,${100 + k},12.99,eu,2,hours,true`);
    writeFileSync(join(dir, `top-ups/c${f}.csv`), `${rows.join('\n')}\n`);
  });
}

class Done extends Error {}

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a }, (_, k) => a + k);
}

let peakRss = process.memoryUsage.rss();
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 10);

async function measureLoad(dir: string): Promise<void> {
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage.rss();
  peakRss = rssBefore;
  const cat = new Catalogue({ dir, credentialsKey: 'bench-key' });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const snap = await cat.load();
  const loadMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  // What the catalogue keeps (its per-file results and the snapshot, both used below), after the garbage is
  // collected.
  global.gc?.();
  const kept = process.memoryUsage().heapUsed - heapBefore;
  check(snap.offers.length === N, `expected ${N} offers, got ${snap.offers.length}`);
  check(
    snap.problems.length === 0,
    `expected no problems, got ${snap.problems.length}: ${JSON.stringify(snap.problems.slice(0, 3))}`,
  );
  process.stdout.write(
    `load ${N / 1000}k offers: ${loadMs.toFixed(0)} ms (CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms), ` +
      `peak RSS ${(peakRss / 1048576).toFixed(0)} MB (${(rssBefore / 1048576).toFixed(0)} MB before the load), ` +
      `${snap.files.length} files  [goal: 2000 ms]\n` +
      (global.gc
        ? `  heap kept after the load: ${(kept / 1048576).toFixed(1)} MB, ${(kept / N).toFixed(0)} bytes per offer\n`
        : '  heap kept after the load: not measured (run with --expose-gc, as `npm run bench` does)\n'),
  );
  const again = await cat.reload({ added: [], changed: [], removed: [] });
  check(again.snapshot.offers.length === N && again.changed.length === 0, 'a reload of no change changed the offers');
}

if (process.env.BENCH_LOAD_DIR) {
  // The child: only the load, so that its RSS is the catalogue's, not the generator's.
  await measureLoad(process.env.BENCH_LOAD_DIR);
  clearInterval(sampler);
  process.exit(failed ? 1 : 0);
}

try {
  // 1. 100k offers across formats, loaded in a fresh process.
  const mixed = join(root, 'mixed');
  writeMixed(mixed, N);
  const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!], {
    env: { ...process.env, BENCH_LOAD_DIR: mixed },
    stdio: 'inherit',
  });
  check(child.status === 0, `the load process exited ${child.status ?? child.signal}`);

  // 2. One CSV file of many unknown columns, one error each at its header cell: its time grows with its size, not
  // its square.
  for (const columns of [25_000, 50_000, 100_000]) {
    const wide = join(root, `wide-${columns}`);
    mkdirSync(join(wide, 'items'), { recursive: true });
    const header = ['external_id', 'title', 'price', 'type'];
    const row = ['wide-1', 'Wide item', '1999', 'skin'];
    for (let c = header.length; c < columns; c++) {
      header.push(`c${c}`);
      row.push('v');
    }
    const csv = `${header.join(',')}\n${row.join(',')}\n`;
    writeFileSync(join(wide, 'items/wide.csv'), csv);
    const t = performance.now();
    const snap = await new Catalogue({ dir: wide, credentialsKey: 'bench-key' }).load();
    const ms = performance.now() - t;
    const headerErrors = snap.problems.filter((p) => p.severity === 'error' && p.line === 1).length;
    check(snap.offers.length === 1, `wide CSV of ${columns} columns: expected 1 offer, got ${snap.offers.length}`);
    check(
      headerErrors === columns - 4,
      `wide CSV of ${columns} columns: expected ${columns - 4} header errors, got ${headerErrors}`,
    );
    process.stdout.write(
      `CSV of ${columns / 1000}k columns (${(csv.length / 1024).toFixed(0)} KB): ${ms.toFixed(0)} ms, ` +
        `${((ms / columns) * 1000).toFixed(1)} ms per 1k columns  [goal: flat per 1k columns]\n`,
    );
  }

  // 3. Reload one changed file among 10k.
  if (process.env.BENCH_SKIP_RELOAD) throw new Done();
  const many = join(root, 'many');
  mkdirSync(join(many, 'items'), { recursive: true });
  const FILES = 10_000;
  for (let f = 0; f < FILES; f++) {
    writeFileSync(
      join(many, `items/f${f}.ndjson`),
      `${range(f * 10, f * 10 + 10)
        .map((k) => JSON.stringify(item(k)))
        .join('\n')}\n`,
    );
  }
  const cat2 = new Catalogue({ dir: many, credentialsKey: 'bench-key' });
  const t1 = performance.now();
  const snap2 = await cat2.load();
  const load2Ms = performance.now() - t1;
  check(
    snap2.offers.length === FILES * 10,
    `expected ${FILES * 10} offers in ${FILES} files, got ${snap2.offers.length}`,
  );
  const times: number[] = [];
  for (let r = 0; r < 20; r++) {
    const f = (r * 37) % FILES;
    const lines = range(f * 10, f * 10 + 10).map((k) => JSON.stringify({ ...item(k), price: 700 + r }));
    writeFileSync(join(many, `items/f${f}.ndjson`), `${lines.join('\n')}\n`);
    const t = performance.now();
    const res = await cat2.reload({ added: [], changed: [`items/f${f}.ndjson`], removed: [] });
    times.push(performance.now() - t);
    check(
      res.changed.length === 10 && res.added.length === 0 && res.removed.length === 0,
      `reload ${r}: expected 10 changed, got ` +
        `${JSON.stringify({ a: res.added.length, c: res.changed.length, r: res.removed.length })}`,
    );
    check(res.snapshot.offers.length === FILES * 10, `reload ${r}: offer count ${res.snapshot.offers.length}`);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(
    `reload 1 changed file of ${FILES / 1000}k files (${(FILES * 10) / 1000}k offers): median ` +
      `${times[10]!.toFixed(1)} ms, max ${times[times.length - 1]!.toFixed(1)} ms  [target: 50 ms]; full load of ` +
      `those ${load2Ms.toFixed(0)} ms\n`,
  );
} catch (err) {
  if (!(err instanceof Done)) throw err;
} finally {
  clearInterval(sampler);
  rmSync(root, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
