// The planner's assembly around the per-offer decisions: uploads once per image in path order, archives and the
// guard's held list in a stable order, the notices that say why nothing is archived, and a targeted plan.
import { describe, expect, it } from 'vitest';
import type { OfferRecord } from '../../src/state/records.ts';
import type { UploadAction } from '../../src/sync/plan/plan-actions.ts';
import { type PlannerInput, plan } from '../../src/sync/plan/planner.ts';
import type { PlannerOptions } from '../../src/sync/plan/planner-options.ts';
import { emptyKindSnapshot, type RemoteSnapshot } from '../../src/sync/plan/remote-snapshot.ts';
import { PLANNER_OPTIONS } from '../support/planner-options.ts';
import { desiredAccount, desiredItem, imageRef, offerRecord, remoteOffer } from '../support/offers.ts';

const options: PlannerOptions = PLANNER_OPTIONS;
function snapshot(state: OfferRecord[], over: Partial<RemoteSnapshot> = {}): RemoteSnapshot {
  const of = (kind: OfferRecord['kind']) => ({
    ...emptyKindSnapshot(),
    offers: new Map(
      state.filter((r) => r.kind === kind).map((r) => [r.externalId, remoteOffer(r.externalId, r.remoteId ?? 0)]),
    ),
  });
  return {
    kinds: { account: of('account'), item: of('item'), topup: of('topup') },
    gone: new Set(),
    unconfirmed: new Set(),
    ...over,
  };
}
const input = (over: Partial<PlannerInput>): PlannerInput => ({
  catalogue: { offers: [], complete: true, quarantinedFiles: [], invalidOffers: [] },
  state: [],
  remote: snapshot([]),
  uploadedImages: new Map(),
  options,
  ...over,
});

describe('planner: assembly', () => {
  it('uploads each image once, in path order, naming the accounts that need it; none for unconfirmed', async () => {
    const [b, a, c] = [imageRef('b'), imageRef('a'), imageRef('c')];
    const p = await plan(
      input({
        catalogue: {
          offers: [
            desiredAccount('x', {}, { images: [b, a] }),
            desiredAccount('y', {}, { images: [b] }),
            desiredAccount('z', {}, { images: [c] }),
          ],
          complete: true,
          quarantinedFiles: [],
          invalidOffers: [],
        },
        remote: { ...snapshot([]), unconfirmed: new Set(['account:z']) },
        uploadedImages: new Map([['sha-done', 1]]),
      }),
    );
    const uploads = p.actions.filter((x): x is UploadAction => x.type === 'upload');
    expect(uploads.map((u) => [u.image.path, u.neededBy])).toEqual([
      ['images/a.png', ['x']],
      ['images/b.png', ['x', 'y']],
    ]);
    expect(p.actions.find((a) => a.type !== 'noop')?.type).toBe('upload');
  });

  it('archives in kind then external_id order, and a tripped guard holds them back in that order', async () => {
    const state = [
      offerRecord('item', 'i-b', { remoteId: 1, lastApplied: {} }),
      offerRecord('item', 'i-a', { remoteId: 2, lastApplied: {} }),
      offerRecord('account', 'a-z', { remoteId: 3, lastApplied: {} }),
      offerRecord('account', 'a-y', { remoteId: 4, lastApplied: {} }),
    ];
    const loose = {
      ...options,
      allowMassArchive: true,
      guard: { maxArchive: 100, maxArchivePercent: 100, maxArchiveMin: 0 },
    };
    const p = await plan(input({ state, remote: snapshot(state), options: loose }));
    expect(p.actions.filter((x) => x.type === 'archive').map((x) => x.externalId)).toEqual([
      'a-y',
      'a-z',
      'i-a',
      'i-b',
    ]);
    const strict = { ...options, guard: { maxArchive: 1, maxArchivePercent: 0, maxArchiveMin: 0 } };
    const held = (await plan(input({ state, remote: snapshot(state), options: strict }))).guard;
    expect(held.tripped).toBe(true);
    expect(held.held).toEqual([
      { kind: 'account', externalId: 'a-y' },
      { kind: 'account', externalId: 'a-z' },
      { kind: 'item', externalId: 'i-a' },
      { kind: 'item', externalId: 'i-b' },
    ]);
    expect((await plan(input({ state, remote: snapshot(state), options: loose }))).guard).not.toHaveProperty('held');
  });

  it('says why nothing is archived, and warns of an external_id listed twice', async () => {
    const remote = snapshot([]);
    const p = await plan(
      input({
        catalogue: { offers: [], complete: false, quarantinedFiles: [], invalidOffers: [] },
        remote: {
          ...remote,
          kinds: {
            ...remote.kinds,
            item: { ...emptyKindSnapshot(), complete: false, error: '503 on page 3' },
            topup: { ...emptyKindSnapshot(), complete: false },
            account: { ...emptyKindSnapshot(), duplicates: ['dup-1'] },
          },
        },
      }),
    );
    expect(p.archiveSuppressed).toEqual([
      'the catalogue could not be read completely: nothing is archived this run',
      'the item list could not be read completely (503 on page 3): no item is archived this run',
      'the topup list could not be read completely (a page failed): no topup is archived this run',
    ]);
    expect(p.warnings).toEqual([
      "the marketplace lists account 'dup-1' more than once: " +
        'offersync manages the one it maps, fix the other on the website',
    ]);
    const clean = await plan(input({}));
    expect([clean.archiveSuppressed, clean.warnings]).toEqual([[], []]);
  });

  it('a targeted plan acts on its offers only, and counts and describes what it left out', async () => {
    const state = [offerRecord('item', 'gone-in-b', { remoteId: 9, lastApplied: {} })];
    const p = await plan(
      input({
        catalogue: {
          offers: [
            desiredItem('in-a', {}, { source: { file: 'items/a.json' } }),
            desiredItem('in-b', {}, { source: { file: 'items/b.json' } }),
            desiredItem('in-b2', {}, { source: { file: 'items/b.json' } }),
          ],
          complete: true,
          quarantinedFiles: [],
          invalidOffers: [],
        },
        state: [{ ...state[0]!, sourceFile: 'items/b.json' }],
        remote: snapshot([...state, offerRecord('item', 'web-only', { remoteId: 10, lastApplied: {} })]),
        target: { files: ['items/b.json'] },
      }),
    );
    expect(p.actions.map((x) => `${x.type}:${x.type === 'upload' ? x.image.path : x.externalId}`)).toEqual([
      // An archive before the creates: money at risk first.
      'archive:gone-in-b',
      'create:in-b',
      'create:in-b2',
    ]);
    expect(p.target).toMatchObject({ files: ['items/b.json'], description: '--file items/b.json', outside: 2 });
    expect((await plan(input({}))).target).toBeUndefined();
  });
});
