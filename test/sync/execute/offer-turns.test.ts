import { describe, expect, it } from 'vitest';
import { OfferTurns } from '../../../src/sync/execute/offer-turns.ts';

const offer = (externalId: string) => ({ kind: 'item', externalId }) as const;
/** Lets the writes taken so far start. */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** A write that ends when told to, noting when it starts and ends. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return {
    open,
    write: async () => {
      log.push(`${name} start`);
      await opened;
      log.push(`${name} end`);
    },
  };
}

describe('OfferTurns', () => {
  it('a later run claims an offer: the earlier run drops its write not yet started, writes the others', async () => {
    const turns = new OfferTurns();
    const backlog = turns.begin(false);
    const urgent = turns.begin(true);
    turns.claim(urgent.epoch, [offer('a')]);
    const log: string[] = [];
    expect(await turns.take(backlog.epoch, [offer('a')], async () => void log.push('backlog a'))).toBe(false);
    expect(await turns.take(backlog.epoch, [offer('b')], async () => void log.push('backlog b'))).toBe(true);
    expect(await turns.take(urgent.epoch, [offer('a')], async () => void log.push('urgent a'))).toBe(true);
    expect(log).toEqual(['backlog b', 'urgent a']);
    expect(turns.supersededBy(backlog.epoch, 'item', 'a')).toBe(urgent.epoch);
    expect(turns.supersededBy(urgent.epoch, 'item', 'a')).toBeUndefined();
  });

  it('a write already started is waited for: never two writes of one offer at once, the newer last', async () => {
    const turns = new OfferTurns();
    const backlog = turns.begin(false);
    const urgent = turns.begin(true);
    const log: string[] = [];
    const slow = gate(log, 'backlog');
    const started = turns.take(backlog.epoch, [offer('a'), offer('b')], slow.write);
    await settle();
    turns.claim(urgent.epoch, [offer('b')]);
    const after = turns.take(urgent.epoch, [offer('b')], async () => void log.push('urgent b'));
    await settle();
    expect(log).toEqual(['backlog start']);
    slow.open();
    expect(await started).toBe(true);
    expect(await after).toBe(true);
    expect(log).toEqual(['backlog start', 'backlog end', 'urgent b']);
  });

  it('an earlier run waiting its turn drops its write when a later run claims the offer meanwhile', async () => {
    const turns = new OfferTurns();
    const first = turns.begin(false);
    const second = turns.begin(true);
    const log: string[] = [];
    const slow = gate(log, 'first');
    const running = turns.take(first.epoch, [offer('a')], slow.write);
    await settle();
    // The same run's second write of the offer (an align after a create) waits, then finds it claimed.
    const waiting = turns.take(first.epoch, [offer('a')], async () => void log.push('first again'));
    turns.claim(second.epoch, [offer('a')]);
    slow.open();
    expect(await running).toBe(true);
    expect(await waiting).toBe(false);
    expect(log).toEqual(['first start', 'first end']);
    turns.clear();
    expect(turns.supersededBy(first.epoch, 'item', 'a')).toBeUndefined();
  });
});
