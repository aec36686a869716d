// sandboxControls: what a test (or the control routes) may do to a running sandbox beside the API: reset it,
// read its counters, change its faults and switches, and act as the marketplace or a buyer would on an offer.
import type { Controls } from './control.ts';
import { FaultInjector } from './faults.ts';
import { ALL_STATUSES, OFFER_KINDS } from './sandbox-records.ts';
import { checkBulk, checkFaults, checkRateLimit, checkRepresentation, type OfferKind } from './sandbox-options.ts';
import type { SandboxState } from './sandbox-state.ts';

export function sandboxControls(state: SandboxState): Controls {
  return {
    reset: () => state.reset(),
    counters: () => state.counters.snapshot(),
    resetCounters: () => state.counters.reset(),
    setFaults(f) {
      state.faults = new FaultInjector(checkFaults(f));
    },
    setRepresentation(r) {
      state.representation = checkRepresentation(r);
    },
    setBulk(b) {
      state.bulk = checkBulk(b);
    },
    setRateLimit(r) {
      state.setRateLimit(checkRateLimit(r));
    },
    setStatus: (kind, identifier, status) => setStatus(state, kind, identifier, status),
    sell: (kind, identifier, quantity, keepStock) => sell(state, kind, identifier, quantity, keepStock),
    dump: () => {
      const dumps = state.allStores().map((s) => s.dump());
      return {
        accounts: dumps.flatMap((d) => d.accounts),
        items: dumps.flatMap((d) => d.items),
        topUps: dumps.flatMap((d) => d.topUps),
        images: dumps.flatMap((d) => d.images),
      };
    },
  };
}

/** As the marketplace would (a sale, a refund): sold sets sold_at. Throws when the offer is unknown. */
function setStatus(state: SandboxState, kind: OfferKind, identifier: string | number, status: string): void {
  if (!OFFER_KINDS.includes(kind))
    throw new TypeError(`kind: expected one of ${OFFER_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  if (!ALL_STATUSES.includes(status))
    throw new TypeError(`status: expected one of ${ALL_STATUSES.join(', ')}, got ${JSON.stringify(status)}`);
  const owner = state.allStores().find((s) => s.find(kind, String(identifier)));
  const rec = owner?.find(kind, String(identifier));
  if (!owner || !rec) throw new Error(`${kind} offer ${JSON.stringify(identifier)} not found`);
  owner.update(kind, rec, { status });
  state.persist();
}

/** As a buyer would: `quantity` units of an item or top-up sold (RunningSandbox.sell says how). */
function sell(
  state: SandboxState,
  kind: OfferKind,
  identifier: string | number,
  quantity: number,
  keepStock: boolean | undefined,
): { soldCount: number; stock: number | null } {
  if (kind !== 'items' && kind !== 'top-ups')
    throw new TypeError(`kind: expected items or top-ups (accounts sell whole), got ${JSON.stringify(kind)}`);
  if (!Number.isSafeInteger(quantity) || quantity < 1)
    throw new TypeError(`quantity: expected a positive integer, got ${JSON.stringify(quantity)}`);
  const owner = state.allStores().find((s) => s.find(kind, String(identifier)));
  const rec = owner?.find(kind, String(identifier));
  if (!owner || !rec) throw new Error(`${kind} offer ${JSON.stringify(identifier)} not found`);
  if (rec.status !== 'listed') throw new TypeError(`${kind} offer ${rec.id} is ${rec.status}, not listed`);
  const stock = typeof rec.fields.stock === 'number' ? rec.fields.stock : null;
  if (stock !== null && stock < quantity)
    throw new TypeError(`${kind} offer ${rec.id} holds ${stock} units, fewer than ${quantity}`);
  const soldCount = (typeof rec.fields.sold_count === 'number' ? rec.fields.sold_count : 0) + quantity;
  const lower = !(keepStock ?? state.representation.saleKeepsStock ?? false) && stock !== null;
  const after = lower && stock !== null ? stock - quantity : stock;
  owner.update(kind, rec, { fields: { sold_count: soldCount, ...(lower ? { stock: after } : {}) } });
  state.persist();
  return { soldCount, stock: after };
}
