// decideRemoved as a table: an offer the catalogue no longer wants, in each remote picture, gets an archive, a
// noop whose reason and detail tell the seller why it was left, or nothing. The detail is what the report prints.
import { describe, expect, it } from 'vitest';
import type { RemoteOffer } from '../../../src/marketplace/marketplace-client.ts';
import type { OfferRecord } from '../../../src/state/records.ts';
import { decideRemoved, isOwned, type RemovedContext } from '../../../src/sync/plan/decide-removed.ts';
import type { MatchedOffer, Presence } from '../../../src/sync/plan/match.ts';
import { offerKey } from '../../../src/catalogue/identity.ts';
import type { PlannerOptions } from '../../../src/sync/plan/planner-options.ts';
import { PLANNER_OPTIONS } from '../../support/planner-options.ts';
import { offerRecord } from '../../support/offers.ts';

const EXT = 'gone-1';

/** The row of the removed item, sent as {title: T, price: 100} to remote offer 41. */
const rec = (over: Partial<OfferRecord> = {}): OfferRecord =>
  offerRecord('item', EXT, {
    remoteId: 41,
    lastApplied: { title: 'T', price: 100 },
    contentHash: 'h',
    sourceFile: 'items/a.json',
    ...over,
  });

function live(status: string | undefined, id = 41): RemoteOffer {
  return { id, externalId: EXT, ...(status ? { status } : {}), fields: {} };
}

function matched(presence: Presence, state: OfferRecord | undefined, remote: RemoteOffer | undefined): MatchedOffer {
  return {
    key: offerKey('item', EXT),
    kind: 'item',
    externalId: EXT,
    side: 'remote',
    desired: undefined,
    state,
    live: remote,
    presence,
  };
}

const complete: RemovedContext = {
  options: PLANNER_OPTIONS,
  catalogueComplete: true,
  remoteComplete: true,
  quarantinedFiles: new Set(),
  invalid: false,
};
const archive = (remoteId: number) => ({
  type: 'archive',
  kind: 'item',
  externalId: EXT,
  remoteId,
  reason: 'removed from the catalogue',
});
const noop = (reason: string, detail: string | undefined, remoteId: number | undefined) => ({
  type: 'noop',
  kind: 'item',
  externalId: EXT,
  reason,
  ...(detail ? { detail } : {}),
  ...(remoteId !== undefined ? { remoteId } : {}),
});

describe('decideRemoved', () => {
  it.each([
    ['listed and owned: archived by the live id', matched('listed', rec(), live('listed', 42)), complete, archive(42)],
    ['remembered only: archived by the state id', matched('remembered', rec(), undefined), complete, archive(41)],
    [
      'gone: forgotten, with its id',
      matched('gone', rec(), undefined),
      complete,
      noop('gone', 'no longer on the marketplace: forgotten', 41),
    ],
    [
      'gone, with no id known: forgotten, no id given',
      matched('gone', rec({ remoteId: null }), undefined),
      complete,
      noop('gone', 'no longer on the marketplace: forgotten', undefined),
    ],
    [
      'unconfirmed: retried next run',
      matched('unconfirmed', rec(), undefined),
      complete,
      noop('unconfirmed', 'missing from the list and the check by id failed: retried next run', 41),
    ],
    ['archived on the marketplace: nothing to do', matched('listed', rec(), live('archived')), complete, null],
    [
      'archived as the state remembers it: nothing',
      matched('remembered', rec({ remoteStatus: 'archived' }), undefined),
      complete,
      null,
    ],
    [
      'sold: the marketplace wins',
      matched('listed', rec(), live('sold')),
      complete,
      noop('sold', 'the marketplace marks it sold', 41),
    ],
    [
      'processing as the state remembers it',
      matched('remembered', rec({ remoteStatus: 'processing' }), undefined),
      complete,
      noop('processing', 'the marketplace marks it processing', 41),
    ],
    [
      'not owned: left alone, without a detail',
      matched('listed', rec({ managed: false }), live('listed')),
      complete,
      noop('unmanaged', undefined, 41),
    ],
    [
      'listed on the marketplace with no state row: not owned',
      matched('listed', undefined, live('listed', 43)),
      complete,
      noop('unmanaged', undefined, 43),
    ],
    [
      'its catalogue entry has errors',
      matched('listed', rec(), live('listed')),
      { ...complete, invalid: true },
      noop('invalid', 'its catalogue entry has errors: fix them; it is not archived meanwhile', 41),
    ],
    [
      'its file does not parse: quarantined, the file named',
      matched('listed', rec(), live('listed')),
      { ...complete, quarantinedFiles: new Set(['items/a.json']) },
      noop('quarantined', 'items/a.json does not parse: its offers are left as they are', 41),
    ],
    [
      'another file failed to parse: archived all the same',
      matched('listed', rec(), live('listed')),
      { ...complete, quarantinedFiles: new Set(['items/b.json']) },
      archive(41),
    ],
    [
      'the catalogue was read incompletely: held',
      matched('listed', rec(), live('listed')),
      { ...complete, catalogueComplete: false },
      noop('blocked', 'not archived: the catalogue or the remote list was incomplete this run', 41),
    ],
    [
      'the remote list was read incompletely: held',
      matched('listed', rec(), live('listed')),
      { ...complete, remoteComplete: false },
      noop('blocked', 'not archived: the catalogue or the remote list was incomplete this run', 41),
    ],
    [
      'owned but never sent (no id anywhere): nothing',
      matched('absent', rec({ remoteId: null }), undefined),
      complete,
      null,
    ],
  ] as const)('%s', (_name, m, ctx, expected) => {
    expect(decideRemoved(m, ctx)).toStrictEqual(expected);
  });

  it('an offer neither in the state db nor on the marketplace is never archived, whatever the prune policy', () => {
    const all = { ...complete, options: { ...PLANNER_OPTIONS, prune: 'all' as const } };
    expect(decideRemoved(matched('absent', undefined, undefined), all)).toBeNull();
  });
});

describe('isOwned', () => {
  const opts = (over: Partial<PlannerOptions>): PlannerOptions => ({ ...PLANNER_OPTIONS, ...over });
  it.each([
    ['managed row, prune managed', rec(), opts({}), true],
    ['unmanaged row, prune managed', rec({ managed: false }), opts({}), false],
    ['unmanaged row matching ownedPattern', rec({ managed: false }), opts({ ownedPattern: /^gone-/ }), true],
    ['unmanaged row not matching ownedPattern', rec({ managed: false }), opts({ ownedPattern: /^x-/ }), false],
    ['no row, prune all', undefined, opts({ prune: 'all' }), true],
    ['managed row, prune none', rec(), opts({ prune: 'none' }), false],
    ['no row, ownedPattern matching', undefined, opts({ ownedPattern: /gone/ }), true],
  ] as const)('%s: %s', (_name, state, options, owned) => {
    expect(isOwned(matched('listed', state, live('listed')), options)).toBe(owned);
  });
});
