// The rule that keeps a sale from being undone, as a table: a lower stock the marketplace's sales explain is not
// drift; a catalogue change is sent as written; a change no sale explains is drift.
import { describe, expect, it } from 'vitest';
import { type StockPicture, stockVerdict } from '../../src/sync/sale-or-drift.ts';

const sent5: StockPicture = { desired: 5, lastSent: 5, live: 5, soldNow: 0, soldAtSend: 0 };

describe('sale or drift', () => {
  it.each([
    ['the marketplace holds the catalogue stock', sent5, 'same'],
    ['2 units sold, stock lowered by 2', { ...sent5, live: 3, soldNow: 2 }, 'sale'],
    ['2 more units sold after an earlier sale', { ...sent5, live: 1, soldNow: 4 }, 'sale'],
    ['2 units sold, the marketplace keeps stock apart', { ...sent5, live: 5, soldNow: 2 }, 'same'],
    ['stock lowered by 2, no sale', { ...sent5, live: 3, soldNow: 0 }, 'drift'],
    ['stock lowered by 3, 2 units sold', { ...sent5, live: 2, soldNow: 2 }, 'drift'],
    ['stock raised on the website', { ...sent5, live: 9, soldNow: 2 }, 'drift'],
    ['no sold count shown', { ...sent5, live: 3, soldNow: undefined }, 'drift'],
    ['catalogue stock changed', { ...sent5, desired: 3, live: 4, soldNow: 1 }, 'changed'],
    ['catalogue stock raised after a sale', { ...sent5, desired: 8, live: 3, soldNow: 2 }, 'changed'],
    ['never sent', { ...sent5, lastSent: undefined, live: 3 }, 'changed'],
    ['adopted: its sales explain the lower stock', { ...sent5, lastSent: undefined, live: 3, soldNow: 2 }, 'sale'],
    ['adopted: its sales fall short', { ...sent5, lastSent: undefined, live: 1, soldNow: 2 }, 'changed'],
    ['count at send unknown, sales cover the fall', { ...sent5, live: 3, soldNow: 7, soldAtSend: null }, 'sale'],
    ['count at send unknown, sales fall short', { ...sent5, live: 1, soldNow: 3, soldAtSend: null }, 'drift'],
  ] as const)('%s: %s', (_name, picture, verdict) => {
    expect(stockVerdict(picture)).toBe(verdict);
  });
});
