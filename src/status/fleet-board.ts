// What the fleet page shows of each seller, read from where its state is kept (the shared PostgreSQL, or each
// seller's sqlite file): its last run and outcome, the offers held back and failed, the sales of the day. Who holds
// the seller comes from the replica. Read-only.
import type { StateStore } from '../state/state-store.ts';
import { readGuardStop } from '../sync/plan/guard-stop.ts';
import { loadBackoffs } from '../sync/plan/offer-backoff.ts';
import type { SalesLedger } from '../sales/sales-ledger.ts';
import type { StatusView } from './status-board.ts';
import { StatusBoard } from './status-board.ts';

/** One seller's state, opened for reading (a replica need not run the seller to show it). */
export interface SellerState {
  readonly store: StateStore;
  readonly sales: SalesLedger;
  close(): Promise<void>;
}

export interface FleetHolder {
  readonly replica: string;
  readonly host: string;
  readonly pid: number;
}

export interface FleetSellerView {
  readonly seller: string;
  /** Runs in this replica. */
  readonly here: boolean;
  /** The replica holding its lease; null when none does (not claimed yet, or its holder died). */
  readonly heldBy: FleetHolder | null;
  /** Why it cannot run here (no key, a catalogue...), when it failed to start. */
  readonly error: string | null;
  readonly lastRun: { readonly at: number; readonly outcome: string; readonly command: string } | null;
  /** Offers the marketplace refused, waiting for their backoff or a change of their entry. */
  readonly heldOffers: number;
  /** Offers the last run failed or could not send (blocked). */
  readonly failedOffers: number;
  /** Sales seen since midnight UTC. */
  readonly salesToday: number;
  /** The state could not be read: the figures above are zero. */
  readonly unreadable: string | null;
}

export interface FleetView {
  readonly replica: string;
  readonly liveReplicas: number;
  readonly generatedAt: number;
  readonly refreshSeconds: number;
  /** Why this replica is not ready (the database does not answer), if so. */
  readonly trouble: string | null;
  readonly sellers: readonly FleetSellerView[];
}

/** Midnight UTC of the day of `now`. */
export function startOfDayUtc(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

/** The figures of one seller from its state. */
export async function readSellerFigures(
  state: Pick<SellerState, 'store' | 'sales'>,
  now: number,
): Promise<Pick<FleetSellerView, 'lastRun' | 'heldOffers' | 'failedOffers' | 'salesToday'>> {
  const [run] = await state.store.listRuns(1);
  const failedOffers = run
    ? Object.entries(run.counts)
        .filter(([k]) => k.endsWith('.failed') || k.endsWith('.blocked'))
        .reduce((n, [, v]) => n + v, 0)
    : 0;
  return {
    lastRun: run ? { at: run.startedAt, outcome: run.outcome ?? 'running', command: run.command } : null,
    heldOffers: (await loadBackoffs(state.store)).size,
    failedOffers,
    salesToday: await state.sales.countSince(startOfDayUtc(now)),
  };
}

/**
 * The page of a seller not running here, from its state alone: the seller page's view, with the daemon's part
 * saying who holds it.
 */
export async function remoteSellerView(
  seller: string,
  state: SellerState,
  heldBy: FleetHolder | null,
  now: number,
): Promise<StatusView> {
  const board = new StatusBoard(state.store, state.sales, { name: null, id: seller });
  const [run] = await state.store.listRuns(1);
  return board.view(
    {
      ready: false,
      running: run?.outcome === 'running',
      lastError: null,
      waiting: heldBy
        ? `Runs on replica ${heldBy.replica} (pid ${heldBy.pid} on ${heldBy.host}); this page reads its state db.`
        : 'No replica holds this seller now: one claims it within a lease period.',
      lastOutcome: run?.outcome ?? null,
      guardStop: await readGuardStop(state.store),
    },
    null,
    now,
  );
}
