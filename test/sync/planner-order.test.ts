// The planner's assembly around the per-offer decisions: uploads once per image in path order, archives and the
// guard's held list in a stable order, the notices that say why nothing is archived, and a targeted plan.
import { describe, expect, it } from 'vitest';
import type { DesiredAccount, DesiredItem, ImageRef } from '../../src/catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import type { OfferRecord } from '../../src/state/records.ts';
import type { UploadAction } from '../../src/sync/plan.ts';
import { type PlannerInput, type PlannerOptions, plan } from '../../src/sync/planner.ts';
import { emptyKindSnapshot, type RemoteSnapshot } from '../../src/sync/remote-snapshot.ts';
import { PLANNER_OPTIONS } from '../support/planner-options.ts';

const options: PlannerOptions = PLANNER_OPTIONS;
const image = (name: string): ImageRef => ({
  path: `images/${name}.png`,
  absPath: `/c/images/${name}.png`,
  sha256: `sha-${name}`,
  sizeBytes: 1,
  mimeType: 'image/png',
});
const account = (externalId: string, images: ImageRef[] = []): DesiredAccount => ({
  kind: 'account',
  externalId,
  hash: 'h',
  source: { file: 'accounts/a.json' },
  fields: { title: externalId, price: 1 },
  images,
});
const item = (externalId: string, file = 'items/i.json'): DesiredItem => ({
  kind: 'item',
  externalId,
  hash: 'h',
  source: { file },
  fields: { title: externalId, price: 1 },
});
const row = (kind: OfferRecord['kind'], externalId: string, remoteId: number): OfferRecord => ({
  kind,
  externalId,
  remoteId,
  lastApplied: {},
  credentialsHmac: null,
  imageHashes: [],
  contentHash: null,
  remoteStatus: 'listed',
  remoteUpdatedAt: null,
  managed: true,
  sourceFile: kind === 'item' ? 'items/i.json' : 'accounts/a.json',
  lossyFields: [],
  updatedAt: 0,
});
const live = (r: OfferRecord): RemoteOffer => ({
  id: r.remoteId ?? 0,
  externalId: r.externalId,
  status: 'listed',
  fields: {},
});
function snapshot(state: OfferRecord[], over: Partial<RemoteSnapshot> = {}): RemoteSnapshot {
  const of = (kind: OfferRecord['kind']) => ({
    ...emptyKindSnapshot(),
    offers: new Map(state.filter((r) => r.kind === kind).map((r) => [r.externalId, live(r)])),
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
    const [b, a, c] = [image('b'), image('a'), image('c')];
    const p = await plan(
      input({
        catalogue: {
          offers: [account('x', [b, a]), account('y', [b]), account('z', [c])],
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
    expect(p.actions[0]?.type).toBe('upload');
  });

  it('archives in kind then external_id order, and a tripped guard holds them back in that order', async () => {
    const state = [row('item', 'i-b', 1), row('item', 'i-a', 2), row('account', 'a-z', 3), row('account', 'a-y', 4)];
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
    const state = [row('item', 'gone-in-b', 9)];
    const p = await plan(
      input({
        catalogue: {
          offers: [item('in-a', 'items/a.json'), item('in-b', 'items/b.json'), item('in-b2', 'items/b.json')],
          complete: true,
          quarantinedFiles: [],
          invalidOffers: [],
        },
        state: [{ ...state[0]!, sourceFile: 'items/b.json' }],
        remote: snapshot([...state, row('item', 'web-only', 10)]),
        target: { files: ['items/b.json'] },
      }),
    );
    expect(p.actions.map((x) => `${x.type}:${x.type === 'upload' ? x.image.path : x.externalId}`)).toEqual([
      'create:in-b',
      'create:in-b2',
      'archive:gone-in-b',
    ]);
    expect(p.target).toMatchObject({ files: ['items/b.json'], description: '--file items/b.json', outside: 2 });
    expect((await plan(input({}))).target).toBeUndefined();
  });
});
