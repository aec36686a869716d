// The events of an offer's story, as the executor drafts them: the routes named as the API document writes them,
// credentials kept by name only, the marketplace's answer read from the client's errors (refused, unknown, or no
// request at all), and what the website changed read back from an update's drift.
import { describe, expect, it } from 'vitest';
import type { ItemFields, OfferKind } from '../../../src/catalogue/desired-offer.ts';
import {
  ClientError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../../../src/marketplace/marketplace-errors.ts';
import { QueueClearedError } from '../../../src/queue/queue-cleared-error.ts';
import { RunStoppedError } from '../../../src/sync/run-stopped.ts';
import {
  answerOf,
  createdChanges,
  EVENT_ROUTES,
  editedOnWebsite,
  keptChange,
  seen,
  sentWrite,
  TAKEN,
  UPDATE_REASONS,
  updatedChanges,
} from '../../../src/sync/execute/offer-events.ts';
import type { FieldChange } from '../../../src/sync/fields/field-change.ts';

const KINDS: readonly OfferKind[] = ['account', 'item', 'topup'];
/** An item's fields as a create sends them, one left undefined (a create leaves it out). */
const ITEM: ItemFields = { title: 'A', price: 100, stock: undefined };

describe('routes', () => {
  it('are named as the API document writes them', () => {
    expect(KINDS.map((k) => EVENT_ROUTES.create(k))).toEqual([
      'POST /api/v1/accounts',
      'POST /api/v1/items',
      'POST /api/v1/top-ups',
    ]);
    expect(EVENT_ROUTES.update('topup')).toBe('PATCH /api/v1/top-ups/:id');
    expect(EVENT_ROUTES.archive('account')).toBe('DELETE /api/v1/accounts/:id');
    expect(EVENT_ROUTES.archive('item')).toBe('PATCH /api/v1/items/:id');
    expect(EVENT_ROUTES.archive('topup')).toBe('PATCH /api/v1/top-ups/:id');
    expect(EVENT_ROUTES.delete('item')).toBe('DELETE /api/v1/items/:id');
    expect(EVENT_ROUTES.bulk('item', 'bulk-update')).toBe('POST /api/v1/items/bulk-update');
    expect(EVENT_ROUTES.bulk('account', 'bulk-remove')).toBe('POST /api/v1/accounts/bulk-remove');
    expect(EVENT_ROUTES.recreate).toBe('DELETE /api/v1/accounts/:id, then POST /api/v1/accounts');
  });
});

describe('changes kept', () => {
  it.each(['credentials', 'login', 'password', 'email_login', 'email_password'])(
    '%s is kept by its name alone, never its values',
    (field) => {
      expect(keptChange(field, 'old-secret', 'new-secret', 'changed')).toStrictEqual({ field });
    },
  );

  it('other fields keep from, to and why, leaving out what is not known', () => {
    expect(keptChange('price', 1999, 2499, 'drift')).toStrictEqual({
      field: 'price',
      from: 1999,
      to: 2499,
      why: 'drift',
    });
    expect(keptChange('price', undefined, 2499)).toStrictEqual({ field: 'price', to: 2499 });
    expect(keptChange('price', 1999, undefined)).toStrictEqual({ field: 'price', from: 1999 });
    // null is a value (a field cleared), kept.
    expect(keptChange('description', null, 'x')).toStrictEqual({ field: 'description', from: null, to: 'x' });
  });

  it("a create's every field sent, and an account's credentials by name", () => {
    expect(createdChanges('account', ITEM, true)).toStrictEqual([
      { field: 'title', to: 'A' },
      { field: 'price', to: 100 },
      { field: 'credentials' },
    ]);
    expect(createdChanges('account', ITEM, false)).toStrictEqual([
      { field: 'title', to: 'A' },
      { field: 'price', to: 100 },
    ]);
    // Only accounts have credentials.
    expect(createdChanges('item', ITEM, true)).toStrictEqual([
      { field: 'title', to: 'A' },
      { field: 'price', to: 100 },
    ]);
  });

  it("an update's changes with why, then a new gallery and new credentials by name", () => {
    const changes: FieldChange[] = [
      { field: 'price', from: 1999, to: 2499, why: 'changed' },
      { field: 'stock', from: 2, to: 5, why: 'drift' },
    ];
    expect(updatedChanges(changes, true, [4, 5])).toStrictEqual([
      { field: 'price', from: 1999, to: 2499, why: 'changed' },
      { field: 'stock', from: 2, to: 5, why: 'drift' },
      { field: 'image_ids', to: [4, 5], why: 'changed' },
      { field: 'credentials' },
    ]);
    expect(updatedChanges(changes.slice(0, 1), false, undefined)).toStrictEqual([
      { field: 'price', from: 1999, to: 2499, why: 'changed' },
    ]);
  });
});

describe('what the website changed', () => {
  it('is read from the drift changes, from what offersync sent to what the website set', () => {
    const changes: FieldChange[] = [
      { field: 'price', from: 1999, to: 2499, why: 'changed' },
      { field: 'stock', from: 2, to: 5, why: 'drift' },
    ];
    expect(editedOnWebsite('item', 'gold-1', changes)).toStrictEqual({
      kind: 'item',
      externalId: 'gold-1',
      type: 'edited-on-website',
      route: null,
      changes: [{ field: 'stock', from: 5, to: 2 }],
      quantity: null,
      detail: null,
      answer: null,
    });
  });

  it('is nothing when the update patches nothing back', () => {
    expect(editedOnWebsite('item', 'gold-1', [{ field: 'price', from: 1, to: 2, why: 'changed' }])).toBeNull();
    expect(editedOnWebsite('item', 'gold-1', [])).toBeNull();
  });
});

describe('events', () => {
  it('seen: no request behind it, no detail or quantity unless given', () => {
    expect(seen('topup', 'rp-1', 'gone')).toStrictEqual({
      kind: 'topup',
      externalId: 'rp-1',
      type: 'gone',
      route: null,
      changes: [],
      quantity: null,
      detail: null,
      answer: null,
    });
    expect(seen('item', 'gold-1', 'sold', 'the marketplace sold units', 2)).toMatchObject({
      detail: 'the marketplace sold units',
      quantity: 2,
    });
  });

  it('a write sent: its route, changes and answer', () => {
    const changes = [{ field: 'price', to: 2 }];
    expect(sentWrite('item', 'gold-1', 'updated', 'PATCH /api/v1/items/:id', changes, TAKEN)).toStrictEqual({
      kind: 'item',
      externalId: 'gold-1',
      type: 'updated',
      route: 'PATCH /api/v1/items/:id',
      changes,
      quantity: null,
      detail: null,
      answer: { outcome: 'ok', status: null, message: null },
    });
    expect(sentWrite('item', 'gold-1', 'archived', 'r', [], TAKEN, 'removed').detail).toBe('removed');
  });

  it('why an update was sent, as history tells it', () => {
    expect(UPDATE_REASONS).toStrictEqual({
      changed: 'changed in the catalogue',
      drift: null,
      relist: 'archived on the website, still in the catalogue: listed again',
      adopted: 'found under its external_id: aligned with the catalogue',
    });
  });
});

describe("the marketplace's answer to a write that threw", () => {
  const ctx = { method: 'PATCH', path: '/api/v1/items/7' };

  it("refused: its status and the marketplace's own message, secrets of the request blanked", () => {
    const err = new ValidationError({ ...ctx, status: 422, serverMessage: 'price too low for pw hunter22' });
    expect(answerOf(err, ['hunter22', undefined])).toStrictEqual({
      outcome: 'refused',
      status: 422,
      message: 'price too low for pw [REDACTED]',
    });
  });

  it('refused without a message of the marketplace: the error as read', () => {
    const err = new ClientError({ ...ctx, status: 409 });
    expect(answerOf(err)).toStrictEqual({
      outcome: 'refused',
      status: 409,
      message: 'PATCH /api/v1/items/7: 409 request refused',
    });
  });

  it('unknown: a 5xx or a timeout of a write, which may have happened', () => {
    expect(answerOf(new ServerError({ ...ctx, status: 502, serverMessage: 'bad gateway' }))).toStrictEqual({
      outcome: 'unknown',
      status: 502,
      message: 'bad gateway',
    });
    expect(answerOf(new TimeoutError(ctx, 5000))).toStrictEqual({
      outcome: 'unknown',
      status: null,
      message: 'PATCH /api/v1/items/7: no complete answer within 5000 ms',
    });
  });

  it('none when the request never went out, or failed with no answer of the marketplace', () => {
    expect(answerOf(new RunStoppedError('SIGTERM'))).toBeNull();
    expect(answerOf(new QueueClearedError('PATCH', '/api/v1/items/7'))).toBeNull();
    expect(answerOf(new Error('image missing: images/a.png'))).toBeNull();
    expect(answerOf(null)).toBeNull();
  });
});
