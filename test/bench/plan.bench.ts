// Plan for 100k offers with 1% changed: CPU time and peak RSS (goal: under 1 s CPU), twice: with the state as
// records in memory, and as a reconcile reads it, through the sqlite store's view (one lookup per offer).
import type { DesiredAccount, DesiredItem, DesiredOffer, DesiredTopUp } from '../../src/catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OfferView } from '../../src/state/offer-view.ts';
import type { OfferRecord } from '../../src/state/records.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { plan } from '../../src/sync/plan/planner.ts';
import type { KindSnapshot } from '../../src/sync/plan/remote-snapshot.ts';
import { PLANNER_OPTIONS } from '../support/planner-options.ts';

const N = Number(process.env.BENCH_OFFERS ?? 100_000);
const desired: DesiredOffer[] = [];
const state: OfferRecord[] = [];
const remote = {
  account: new Map<string, RemoteOffer>(),
  item: new Map<string, RemoteOffer>(),
  topup: new Map<string, RemoteOffer>(),
};

for (let i = 0; i < N; i++) {
  const kind = i % 3 === 0 ? 'account' : i % 3 === 1 ? 'item' : 'topup';
  const externalId = `${kind}-${i}`;
  const changed = i % 100 === 0;
  const base = { externalId, hash: `h${i}`, source: { file: `${kind}s/f${i % 1000}.json` } };
  let d: DesiredOffer;
  if (kind === 'account')
    d = {
      ...base,
      kind,
      images: [],
      fields: {
        title: `Account ${i}`,
        price: 1000 + i,
        current_rank: 'gold',
        current_division: 'II',
        level: 30,
        champions: ['Ahri', 'Lux'],
        description: 'x'.repeat(80),
      },
    } satisfies DesiredAccount;
  else if (kind === 'item')
    d = {
      ...base,
      kind,
      fields: { title: `Item ${i}`, price: 500 + i, stock: 3, type: 'skin', description: 'y'.repeat(60) },
    } satisfies DesiredItem;
  else
    d = {
      ...base,
      kind,
      fields: {
        offer_title: `TU ${i}`,
        price: 300 + i,
        offer_amount: 100,
        offer_unit: 'gems',
        region: 'EU',
        active: true,
      },
    } satisfies DesiredTopUp;
  desired.push(d);
  const applied = { ...d.fields, status: 'listed' } as Record<string, unknown>;
  state.push({
    kind,
    externalId,
    remoteId: i + 1,
    lastApplied: applied,
    credentialsHmac: null,
    imageHashes: [],
    contentHash: d.hash,
    remoteStatus: 'listed',
    remoteUpdatedAt: 0,
    managed: true,
    sourceFile: d.source.file,
    lossyFields: [],
    updatedAt: 0,
  });
  const { description: _d, champions: _c, ...echo } = applied;
  remote[kind].set(externalId, {
    id: i + 1,
    externalId,
    status: 'listed',
    fields: changed ? { ...echo, price: 1 } : echo,
  });
}
const snap = (offers: Map<string, RemoteOffer>): KindSnapshot => ({
  offers,
  full: true,
  complete: true,
  duplicates: [],
});

const dir = mkdtempSync(join(tmpdir(), 'offersync-bench-plan-'));
const store = await openStateStore(join(dir, 'state.db'));
await store.upsertOffers(state.map(({ kind, externalId, updatedAt: _u, ...patch }) => ({ kind, externalId, patch })));

async function measure(label: string, view: readonly OfferRecord[] | OfferView): Promise<boolean> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const p = await plan({
    catalogue: { offers: desired, complete: true, quarantinedFiles: [], invalidOffers: [] },
    state: view,
    remote: {
      kinds: { account: snap(remote.account), item: snap(remote.item), topup: snap(remote.topup) },
      gone: new Set(),
      unconfirmed: new Set(),
    },
    uploadedImages: new Map(),
    options: PLANNER_OPTIONS,
  });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);
  const updates = p.actions.filter((a) => a.type === 'update').length;
  const expected = Math.ceil(N / 100);
  console.log(
    `plan ${N} offers, 1% changed, ${label}: ${((cpu.user + cpu.system) / 1000) | 0} ms CPU (goal < 1000), ` +
      `${wall | 0} ms wall, peak RSS ${(peak / 2 ** 20) | 0} MB (inputs alone: ${(rssBefore / 2 ** 20) | 0} MB); ` +
      `updates planned: ${updates} (expected ${expected})`,
  );
  return updates === expected;
}

// Twice each: the first run of a path also pays for compiling it.
const ok = [
  await measure('state records in memory', state),
  await measure('state records in memory, again', state),
  await measure('state through the sqlite view', await store.offerView()),
  await measure('state through the sqlite view, again', await store.offerView()),
].every(Boolean);
store.close();
rmSync(dir, { recursive: true, force: true });
if (!ok) {
  console.error('wrong plan');
  process.exit(1);
}
