// The marketplace stamps offers by two clocks (docs/architecture.md, Clocks): its application writes a create's
// created_at (and an item's or top-up's first updated_at), its database writes every later updated_at, and the
// two may differ by hours either way (a database on another zone). An incremental read walks -updated_at down to
// a cutoff, so the cutoff must lie below what BOTH clocks read when the previous read started: an edit stamped by
// a lagging database clock otherwise sorts below the cutoff and is never seen.
//
// Each clock's offset from the local one is learnt from offersync's own writes: a stamp the server put on a write
// is no later than its clock when the answer arrived, so stamp minus local time is a lower bound of the offset
// (safe: it only moves the cutoff earlier), and the largest of a run's is the closest.
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { StateStore } from '../../state/state-store.ts';

export const MARKETPLACE_CLOCKS = ['create', 'update'] as const;
/** create: the clock of created_at; update: the clock of an updated_at an update wrote. */
export type MarketplaceClock = (typeof MARKETPLACE_CLOCKS)[number];

/** Milliseconds each marketplace clock reads ahead of the local clock (negative: behind). Absent: not learnt yet. */
export type ClockOffsets = Partial<Record<MarketplaceClock, number>>;

/**
 * Assumed for a clock not learnt yet: it may read this far behind ours. Databases keep zones within a few hours of
 * the application's; the first update offersync makes learns the real figure.
 */
export const UNLEARNT_OFFSET_MS = -3 * 3_600_000;

/** Below the clocks' estimates: second-resolution stamps, and writes that land while a read is under way. */
export const CUTOFF_SLACK_MS = 2_000;

const META_KEY: Readonly<Record<MarketplaceClock, string>> = {
  create: 'clock.offset-ms.create',
  update: 'clock.offset-ms.update',
};

/**
 * Epoch ms on the marketplace's clocks below which an updated_at (or a never-updated offer's created_at) was
 * already seen by the read that started at `readStartedMs` (local clock).
 */
export function incrementalCutoff(readStartedMs: number, offsets: ClockOffsets): number {
  const lowest = Math.min(...MARKETPLACE_CLOCKS.map((c) => offsets[c] ?? UNLEARNT_OFFSET_MS));
  return readStartedMs + lowest - CUTOFF_SLACK_MS;
}

/**
 * The stamp a write put on the offer, and by which clock: a create's created_at, an update's updated_at when it
 * moved (a row the update did not change keeps its old stamp, which says nothing of the clock's now).
 */
export function stampOfWrite(
  created: boolean,
  remote: RemoteOffer,
  prevUpdatedAt: number | null | undefined,
): { readonly clock: MarketplaceClock; readonly stampMs: number } | undefined {
  if (created) return remote.createdAt === undefined ? undefined : { clock: 'create', stampMs: remote.createdAt };
  if (remote.updatedAt === undefined || remote.updatedAt === prevUpdatedAt) return undefined;
  return { clock: 'update', stampMs: remote.updatedAt };
}

/** The offsets one run's writes showed: per clock the largest stamp-minus-local-time. */
export class ClockSamples {
  readonly #best: { [C in MarketplaceClock]?: number } = {};

  note(clock: MarketplaceClock, stampMs: number, localMs: number): void {
    const sample = stampMs - localMs;
    const best = this.#best[clock];
    if (best === undefined || sample > best) this.#best[clock] = sample;
  }

  get offsets(): ClockOffsets {
    return { ...this.#best };
  }
}

type MetaStore = Pick<StateStore, 'getMeta' | 'setMeta'>;

export async function loadClockOffsets(store: MetaStore): Promise<ClockOffsets> {
  const out: { [C in MarketplaceClock]?: number } = {};
  for (const clock of MARKETPLACE_CLOCKS) {
    const raw = await store.getMeta(META_KEY[clock]);
    const n = raw === undefined ? Number.NaN : Number(raw);
    if (Number.isFinite(n)) out[clock] = n;
  }
  return out;
}

/** The latest run's figure replaces the one before: a zone's offset moves (summer time), so none is kept forever. */
export async function saveClockOffsets(store: MetaStore, learnt: ClockOffsets): Promise<void> {
  for (const clock of MARKETPLACE_CLOCKS) {
    const v = learnt[clock];
    if (v !== undefined) await store.setMeta(META_KEY[clock], String(Math.round(v)));
  }
}
