// The lane of a run planned at once while another run works (docs/architecture.md, Money first): every request
// made inside it, reads included, outranks every request outside it, so a catalogue change joins the running
// queue ahead of the backlog. Carried by the async context, so the sync code that makes the requests need not
// pass a priority through every call.
import { AsyncLocalStorage } from 'node:async_hooks';

/** Added to the priority of each request in the lane: above every priority a run gives (plan/money-rank.ts, 0-50). */
export const URGENT_BOOST = 100;

const lane = new AsyncLocalStorage<number>();

/** Runs fn with its requests in the urgent lane. */
export function inUrgentLane<T>(fn: () => Promise<T>): Promise<T> {
  return lane.run(URGENT_BOOST, fn);
}

/** What the lane adds to the priority of a request made now. */
export function laneBoost(): number {
  return lane.getStore() ?? 0;
}
