// How `offersync history` words each event and the marketplace's answer, and what its JSON holds: a secret change
// by name only, prices in major units in text and cents in JSON.
import { describe, expect, it } from 'vitest';
import { describeEvent, formatHistory, historyJson } from '../../src/cli/format-history.ts';
import type { OfferEvent } from '../../src/state/records.ts';

const AT = Date.parse('2026-11-24T23:50:01.250Z');
const event = (over: Partial<OfferEvent>): OfferEvent => ({
  id: 1,
  kind: 'item',
  externalId: 'sku-1',
  runId: 'run-1',
  at: AT,
  type: 'updated',
  route: null,
  changes: [],
  quantity: null,
  detail: null,
  answer: null,
  ...over,
});

describe('history wording', () => {
  it.each<[string, Partial<OfferEvent>, string]>([
    [
      'a create',
      {
        type: 'created',
        changes: [
          { field: 'price', to: 1999 },
          { field: 'title', to: 'Sword' },
        ],
      },
      'created: price 19.99, title "Sword"',
    ],
    [
      'an update with a patch back and a secret',
      {
        changes: [
          { field: 'price', from: 1200, to: 1000, why: 'changed' },
          { field: 'credentials' },
          { field: 'stock', from: 2, to: 5, why: 'drift' },
        ],
        detail: 'changed in the catalogue',
      },
      'updated price 12.00 -> 10.00, credentials (changed); patched back stock 2 -> 5 (changed in the catalogue)',
    ],
    [
      'a refused update',
      {
        changes: [{ field: 'price', from: 1200, to: 5, why: 'changed' }],
        answer: { outcome: 'refused', status: 422, message: 'too low' },
      },
      'tried to update price 12.00 -> 0.05',
    ],
    [
      'a refused archive',
      {
        type: 'archived',
        detail: 'removed from the catalogue',
        answer: { outcome: 'unknown', status: 502, message: 'bad gateway' },
      },
      'tried to archive (removed from the catalogue)',
    ],
    ['units sold', { type: 'sold', quantity: 3 }, 'sold 3 units'],
    [
      'an account sold',
      { type: 'sold', detail: 'the marketplace marks it sold' },
      'sold (the marketplace marks it sold)',
    ],
    ['a refund', { type: 'marked', detail: 'the marketplace marks it refunded' }, 'the marketplace marks it refunded'],
    [
      'an edit on the website',
      { type: 'edited-on-website', changes: [{ field: 'title', from: 'A', to: 'B' }] },
      'edited on the website: title "A" -> "B"',
    ],
    [
      'an offer gone',
      { type: 'gone', detail: 'no longer on the marketplace: forgotten' },
      'gone from the marketplace (no longer on the marketplace: forgotten)',
    ],
    [
      'an adoption',
      { type: 'adopted', detail: 'found on the marketplace under its external_id' },
      'adopted (found on the marketplace under its external_id)',
    ],
  ])('%s', (_, over, text) => {
    expect(describeEvent(event(over))).toBe(text);
  });

  it("puts a write's route and answer under it", () => {
    const text = formatHistory({ kind: 'item', externalId: 'sku-1', title: 'Sword', kept: 100 }, [
      event({ route: 'PATCH /api/v1/items/:id', answer: { outcome: 'refused', status: 422, message: 'too low' } }),
      event({
        id: 2,
        runId: null,
        route: 'POST /api/v1/items',
        answer: { outcome: 'unknown', status: null, message: 'timeout' },
      }),
      event({ id: 3, route: 'PATCH /api/v1/items/:id', answer: { outcome: 'ok', status: null, message: null } }),
    ]);
    expect(text).toBe(
      [
        'item sku-1 (Sword): 3 events, oldest first',
        '2026-11-24 23:50:01Z  run run-1  tried to update',
        '    PATCH /api/v1/items/:id: refused (422): too low',
        '2026-11-24 23:50:01Z  no run  tried to update',
        '    POST /api/v1/items: no answer: timeout; looked up again at the next run',
        '2026-11-24 23:50:01Z  run run-1  updated',
        '    PATCH /api/v1/items/:id: accepted',
        '',
      ].join('\n'),
    );
  });

  it('says when the oldest events were dropped for the bound', () => {
    const events = Array.from({ length: 3 }, (_, i) => event({ id: i, type: 'sold', quantity: 1 }));
    expect(formatHistory({ kind: 'item', externalId: 'sku-1', title: null, kept: 3 }, events)).toMatch(
      /\(offersync keeps the last 3 events of each offer\)\n$/,
    );
  });

  it('gives JSON with a secret change by name and no value, prices in cents', () => {
    const doc = historyJson({ kind: 'account', externalId: 'acc-1', title: null, kept: 100 }, [
      event({
        kind: 'account',
        externalId: 'acc-1',
        changes: [{ field: 'credentials' }, { field: 'price', from: 1200, to: 1000, why: 'changed' }],
      }),
    ]);
    expect(doc).toEqual({
      kind: 'account',
      external_id: 'acc-1',
      title: null,
      kept_per_offer: 100,
      events: [
        {
          id: 1,
          at: '2026-11-24T23:50:01.250Z',
          run_id: 'run-1',
          event: 'updated',
          text: 'updated credentials (changed), price 12.00 -> 10.00',
          route: null,
          changes: [
            { field: 'credentials', changed: true },
            { field: 'price', from: 1200, to: 1000, why: 'changed' },
          ],
          quantity: null,
          detail: null,
          answer: null,
        },
      ],
    });
  });
});
