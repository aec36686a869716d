// A saved plan's pure parts (the whole-run behaviour is in saved-plan.run.test.ts): what of each write is compared,
// the file read back only when untouched, the differences a fresh plan shows, and the refusals that keep a plan
// to one state db and one application.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/sync/fields/canonical-json.ts';
import type { Plan, PlanAction } from '../../src/sync/plan/plan-actions.ts';
import type { FieldChange } from '../../src/sync/fields/field-change.ts';
import {
  appliedAt,
  comparable,
  differences,
  markApplied,
  readSavedPlan,
  SAVED_PLAN_FORMAT,
  type SavedPlan,
  savedPlanKeys,
  savedPlanRefusal,
  savePlan,
  stateIdOf,
  writesOf,
} from '../../src/saved-plan/saved-plan.ts';
import { desiredAccount, desiredItem, imageRef, remoteOffer } from '../support/offers.ts';
import { archiveAction, createAction, noopAction, planOf as planWith, updateAction } from '../support/plan-actions.ts';

const item = desiredItem(
  'i-1',
  {},
  {
    hash: 'hash-i1',
    source: { file: 'items/a.json' },
    fields: { title: 'One', price: 100 },
  },
);
const account = desiredAccount(
  'acc-1',
  {},
  {
    hash: 'hash-acc1',
    fields: { title: 'Acc', price: 900 },
    credentials: { password: 'secret-pw' },
  },
);
const image = imageRef('a', { path: 'img/a.png', sha256: 'abc', sizeBytes: 12 });

const create = createAction(account, { reason: 'new' });
const update = updateAction(
  item,
  11,
  { via: 'patch', ifRefused: 'fail' },
  {
    changes: [{ field: 'price', from: 90, to: 100, why: 'changed' }],
  },
);
const archive = archiveAction('item', 'i-9', 19, { via: 'single' }, { reason: 'gone from the catalogue' });
const adopt: PlanAction = {
  type: 'adopt',
  kind: 'item',
  externalId: 'i-1',
  remote: remoteOffer('i-1', 11, { fields: { title: 'One', price: 100 } }),
  desired: item,
  fields: item.fields,
  reason: 'found',
};
const upload: PlanAction = { type: 'upload', image, neededBy: ['acc-1'] };
const noop = noopAction('unchanged', { externalId: 'i-2' });
const planOf = (...actions: PlanAction[]): Plan =>
  planWith(actions, { guard: { tripped: false, archives: 1, limit: 25 } });
const meta = {
  id: 'plan-1',
  seller: 'seller-a',
  marketplace: 'http://127.0.0.1:1234',
  stateId: 'state-1',
  allowMassArchive: false,
  now: new Date('2026-11-24T10:00:00Z'),
};

function memoryMeta(): { getMeta(k: string): string | undefined; setMeta(k: string, v: string): void } {
  const m = new Map<string, string>();
  return { getMeta: (k) => m.get(k), setMeta: (k, v) => void m.set(k, v) };
}

describe('comparable', () => {
  it('stands a desired offer in by its hash, never its credentials', () => {
    const c = comparable(create)!;
    expect(c.desired).toBe('hash-acc1');
    expect(c).toMatchObject({ type: 'create', kind: 'account', externalId: 'acc-1', verifyFirst: false });
    expect(JSON.stringify(c)).not.toContain('secret-pw');
    expect(comparable(update)).toMatchObject({
      type: 'update',
      remoteId: 11,
      desired: 'hash-i1',
      changes: [{ to: 100 }],
    });
  });

  it('keeps of an adopt the remote id and status only', () => {
    expect(comparable(adopt)).toEqual({
      type: 'adopt',
      kind: 'item',
      externalId: 'i-1',
      fields: item.fields,
      reason: 'found',
      desired: 'hash-i1',
      remote: { id: 11, status: 'listed' },
    });
    const { status: _s, ...noStatus } = (adopt as { remote: object }).remote as { status: string };
    expect(comparable({ ...adopt, remote: noStatus } as PlanAction)).toMatchObject({
      remote: { id: 11, status: null },
    });
  });

  it('keeps an archive whole, an upload by its image, and nothing of a noop', () => {
    expect(comparable(archive)).toEqual({ ...archive });
    expect(comparable(upload)).toEqual({
      type: 'upload',
      sha256: 'abc',
      path: 'img/a.png',
      bytes: 12,
      neededBy: ['acc-1'],
    });
    expect(comparable(noop)).toBeNull();
  });
});

describe('writesOf and savePlan', () => {
  it('keys the writes by offer and by image, leaves noops out', () => {
    const w = writesOf(planOf(create, archive, upload, noop));
    expect(Object.keys(w).sort()).toEqual(['account:acc-1', 'image:abc', 'item:i-9']);
    expect(savedPlanKeys(savePlan(planOf(create, archive, upload, noop), meta))).toEqual(['account:acc-1', 'item:i-9']);
  });

  it('writes the metadata and a digest a reader accepts', () => {
    const saved = savePlan(planOf(update), meta);
    expect(saved).toMatchObject({
      format: 'offersync-plan/1',
      id: 'plan-1',
      createdAt: '2026-11-24T10:00:00.000Z',
      seller: 'seller-a',
      marketplace: 'http://127.0.0.1:1234',
      stateId: 'state-1',
      allowMassArchive: false,
    });
    expect(saved.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(readSavedPlan(JSON.stringify(saved))).toEqual(saved);
    expect(savePlan(planOf(update), { ...meta, allowMassArchive: true }).digest).not.toBe(saved.digest);
    // --allow-price-change is kept as --allow-mass-archive is; a file of an older offersync without it reads as false.
    const allowed = savePlan(planOf(update), { ...meta, allowPriceChange: true });
    expect(allowed.allowPriceChange).toBe(true);
    expect(allowed.digest).not.toBe(saved.digest);
    expect(readSavedPlan(JSON.stringify(allowed))).toEqual(allowed);
    expect(readSavedPlan(JSON.stringify({ ...allowed, allowPriceChange: 'yes' }))).toHaveProperty('error');
  });
});

describe('readSavedPlan', () => {
  // Made inside each test: code run while tests are collected is not attributed to a test.
  const makeSaved = () => savePlan(planOf(update, archive), meta);
  const text = (p: unknown) => JSON.stringify(p);

  it('refuses what is not JSON, or not a plan of this format', () => {
    const saved = makeSaved();
    expect(readSavedPlan('{oops')).toEqual({ error: 'not a saved plan: not JSON' });
    for (const v of [null, 'x', {}, { ...saved, format: 'offersync-plan/2' }])
      expect(readSavedPlan(text(v))).toEqual({
        error: `not a saved plan of this offersync (format ${SAVED_PLAN_FORMAT})`,
      });
  });

  it.each(['id', 'createdAt', 'seller', 'marketplace', 'stateId', 'digest'])(
    'refuses a plan whose %s is missing',
    (f) => {
      expect(readSavedPlan(text({ ...makeSaved(), [f]: 5 }))).toEqual({ error: `not a saved plan: ${f} is missing` });
    },
  );

  it('refuses a plan holding a key that names a prototype', () => {
    const t = text(makeSaved()).replace('"writes":{', '"writes":{"__proto__":{"x":1},');
    expect(readSavedPlan(t)).toEqual({
      error: 'not a saved plan: it holds the key /writes/__proto__, which names a prototype',
    });
  });

  it('refuses a plan without its writes or mass-archive flag', () => {
    const saved = makeSaved();
    const { writes: _w, ...noWrites } = saved;
    for (const v of [noWrites, { ...saved, writes: 'x' }, { ...saved, allowMassArchive: 'false' }])
      expect(readSavedPlan(text(v))).toEqual({ error: 'not a saved plan: writes are missing' });
  });

  it('reads a file of an older offersync, without allowPriceChange, and refuses one that is not true or false', () => {
    const { digest: _d, allowPriceChange: _a, ...older } = makeSaved();
    const signed = (doc: object) => ({
      ...doc,
      digest: createHash('sha256').update(canonicalJson(doc)).digest('hex'),
    });
    const read = readSavedPlan(text(signed(older)));
    expect(read).not.toHaveProperty('error');
    expect(read).toMatchObject({ id: 'plan-1' });
    expect(readSavedPlan(text(signed({ ...older, allowPriceChange: 'yes' })))).toEqual({
      error: 'not a saved plan: allowPriceChange is not true or false',
    });
  });

  it('refuses a plan edited after it was written', () => {
    const saved = makeSaved();
    const edited = { ...saved, writes: { ...saved.writes, 'item:i-9': { ...saved.writes['item:i-9'], remoteId: 20 } } };
    expect(readSavedPlan(text(edited))).toEqual({
      error: 'the saved plan was changed after it was written (digest differs)',
    });
    expect(readSavedPlan(text({ ...saved, allowMassArchive: true }))).toHaveProperty('error');
  });
});

describe('differences', () => {
  const makeSaved = () => savePlan(planOf(update, archive, upload), meta);

  it('is empty for the same plan, whatever its order and noops', () => {
    const saved = makeSaved();
    expect(differences(saved, planOf(noop, upload, archive, update))).toEqual([]);
  });

  it('names a write gone, one of another type, one changed by field, and one not saved', () => {
    const saved = makeSaved();
    const changed: PlanAction = { ...update, changes: [{ field: 'price', from: 90, to: 120, why: 'changed' }] };
    const relisted: PlanAction = { ...update, type: 'update', reason: 'drift', changes: [] };
    expect(differences(saved, planOf(changed, create))).toEqual([
      'i-1 price: planned 1.00, the catalogue now says 1.20',
      'i-9: planned archive, now nothing to do',
      'image img/a.png: planned upload, now nothing to do',
      'acc-1: not in the saved plan, now to create',
    ]);
    expect(differences(saved, planOf(relisted, archive, upload))).toEqual([
      'i-1: planned update, now update another way (changes, reason)',
    ]);
    const adoptInstead: PlanAction = { ...adopt };
    expect(differences(saved, planOf(adoptInstead, archive, upload))).toEqual(['i-1: planned update, now adopt']);
  });
});

describe('differences, field by field', () => {
  const changed = (field: FieldChange['field'], from: unknown, to: FieldChange['to']): FieldChange => ({
    field,
    from,
    to,
    why: 'changed',
  });
  const upd = (...changes: FieldChange[]): PlanAction => ({ ...update, changes });
  const saving = (...actions: PlanAction[]) => savePlan(planOf(...actions), meta);

  it('the catalogue asks the same but the marketplace moved: what the plan saw and what it shows now', () => {
    const saved = saving(upd(changed('price', 90, 100), changed('stock', 3, 5)));
    const now = upd(changed('price', 95, 100), changed('stock', 3, 5));
    expect(differences(saved, planOf(now))).toEqual(['i-1 price: the plan saw 0.90, the marketplace now shows 0.95']);
    // Field by field in name order, a value the plan did not see as (none).
    const savedTwo = saving(upd(changed('stock', null, 5), changed('price', 90, 100)));
    const nowTwo = upd(changed('stock', 3, 5), changed('price', 95, 100));
    expect(differences(savedTwo, planOf(nowTwo))).toEqual([
      'i-1 price: the plan saw 0.90, the marketplace now shows 0.95',
      'i-1 stock: the plan saw (none), the marketplace now shows 3',
    ]);
  });

  it('a change the fresh plan no longer makes, the catalogue asking the same: another way, naming what differs', () => {
    const saved = saving(upd(changed('price', 90, 100)));
    expect(differences(saved, planOf(upd()))).toEqual(['i-1: planned update, now update another way (changes)']);
  });

  it("names a catalogue entry changed where the plan does not show it (an account's credentials)", () => {
    const saved = saving(update);
    const now: PlanAction = { ...update, desired: { ...item, hash: 'hash-other' } };
    expect(differences(saved, planOf(now))).toEqual([
      'i-1: its catalogue entry changed where a plan does not show it (credentials or images)',
    ]);
  });

  it("shows values as the seller wrote them: text quoted, long text cut, nothing as (none), a price's cents", () => {
    const long = 'x'.repeat(70);
    const saved = saving(
      upd(
        changed('title', 'a', 'Old'),
        changed('description', null, long),
        changed('stock', 1, 4),
        changed('price', 1, 100.5),
      ),
    );
    const now = upd(changed('title', 'a', 'New'), changed('stock', 1, 5), changed('price', 1, 1999));
    expect(differences(saved, planOf(now))).toEqual([
      `i-1 description: planned "${'x'.repeat(56)}..., the catalogue now says (none)`,
      'i-1 price: planned 100.5, the catalogue now says 19.99',
      'i-1 stock: planned 4, the catalogue now says 5',
      'i-1 title: planned "Old", the catalogue now says "New"',
    ]);
    // 60 characters are shown whole.
    const sixty = 'y'.repeat(58);
    expect(differences(saving(upd(changed('title', 'a', sixty))), planOf(upd(changed('title', 'a', 'z'))))).toEqual([
      `i-1 title: planned "${sixty}", the catalogue now says "z"`,
    ]);
  });

  it("a create's fields compared as planned", () => {
    const saved = saving(create);
    const now: PlanAction = { ...create, fields: { ...create.fields, price: 950 } };
    expect(differences(saved, planOf(now))).toEqual(['acc-1 price: planned 9.00, the catalogue now says 9.50']);
  });

  it('an image is named by its path, or by its hash when the saved write has none', () => {
    const saved = saving(upload);
    const { path: _p, ...noPath } = saved.writes['image:abc'] ?? {};
    expect(differences({ ...saved, writes: { 'image:abc': noPath } }, planOf())).toEqual([
      'image abc: planned upload, now nothing to do',
    ]);
    expect(differences(saved, planOf())).toEqual(['image img/a.png: planned upload, now nothing to do']);
  });
});

describe('state id and applied plans', () => {
  it('makes the state id once and keeps it', async () => {
    const store = memoryMeta();
    const id = await stateIdOf(store);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await stateIdOf(store)).toBe(id);
    await store.setMeta('state.id', 'given');
    expect(await stateIdOf(store)).toBe('given');
  });

  it('remembers when each plan was applied, once per id, and reads a damaged list as empty', async () => {
    const store = memoryMeta();
    expect(await appliedAt(store, 'p1')).toBeUndefined();
    await markApplied(store, 'p1', new Date('2026-01-01T00:00:00Z'));
    await markApplied(store, 'p2', new Date('2026-01-02T00:00:00Z'));
    await markApplied(store, 'p1', new Date('2026-01-03T00:00:00Z'));
    expect(await appliedAt(store, 'p1')).toBe('2026-01-03T00:00:00.000Z');
    expect(await appliedAt(store, 'p2')).toBe('2026-01-02T00:00:00.000Z');
    expect(JSON.parse(await store.getMeta('plans.applied')!)).toEqual([
      { id: 'p2', at: '2026-01-02T00:00:00.000Z' },
      { id: 'p1', at: '2026-01-03T00:00:00.000Z' },
    ]);
    await store.setMeta('plans.applied', '[{"id":"p3","at":"x"},{"id":4},null,"p2"]');
    expect(await appliedAt(store, 'p3')).toBe('x');
    expect(await appliedAt(store, 'p2')).toBeUndefined();
    await store.setMeta('plans.applied', '{"id":"p3","at":"x"}');
    expect(await appliedAt(store, 'p3')).toBeUndefined();
    await markApplied(store, 'p4', new Date('2026-01-04T00:00:00Z'));
    expect(JSON.parse(await store.getMeta('plans.applied')!)).toEqual([{ id: 'p4', at: '2026-01-04T00:00:00.000Z' }]);
    await store.setMeta('plans.applied', '{oops');
    expect(await appliedAt(store, 'p4')).toBeUndefined();
    await markApplied(store, 'p5', new Date('2026-01-05T00:00:00Z'));
    expect(JSON.parse(await store.getMeta('plans.applied')!)).toEqual([{ id: 'p5', at: '2026-01-05T00:00:00.000Z' }]);
  });

  it('remembers the last thousand applied plans, forgetting the oldest', async () => {
    const store = memoryMeta();
    const at = new Date('2026-01-01T00:00:00Z');
    for (let i = 0; i < 1001; i++) await markApplied(store, `p${i}`, at);
    expect(JSON.parse(await store.getMeta('plans.applied')!)).toHaveLength(1000);
    expect(await appliedAt(store, 'p0')).toBeUndefined();
    expect(await appliedAt(store, 'p1')).toBe('2026-01-01T00:00:00.000Z');
    expect(await appliedAt(store, 'p1000')).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('savedPlanRefusal', () => {
  const makeSaved = (): SavedPlan => savePlan(planOf(update), meta);
  const here = { stateId: 'state-1', marketplace: 'http://127.0.0.1:1234', seller: 'seller-a' };

  it('accepts the plan on its own state db, marketplace and seller, once', async () => {
    const saved = makeSaved();
    const store = memoryMeta();
    expect(await savedPlanRefusal(saved, here, store)).toBeUndefined();
    await markApplied(store, 'other-plan', new Date('2026-01-01T00:00:00Z'));
    expect(await savedPlanRefusal(saved, here, store)).toBeUndefined();
    await markApplied(store, 'plan-1', new Date('2026-01-01T00:00:00Z'));
    expect(await savedPlanRefusal(saved, here, store)).toBe(
      'the plan was already applied (at 2026-01-01T00:00:00.000Z): a saved plan applies at most once',
    );
  });

  it('refuses another state db first, then another marketplace or seller', async () => {
    const saved = makeSaved();
    const store = memoryMeta();
    await markApplied(store, 'plan-1', new Date('2026-01-01T00:00:00Z'));
    expect(await savedPlanRefusal(saved, { ...here, stateId: 'state-2', seller: 'b' }, store)).toBe(
      'the plan was made from another state db (state-1; this one is state-2): ' +
        'a saved plan applies only to the state it was made from',
    );
    const fresh = memoryMeta();
    expect(await savedPlanRefusal(saved, { ...here, marketplace: 'https://market.example' }, fresh)).toBe(
      'the plan was made against http://127.0.0.1:1234, not https://market.example',
    );
    expect(await savedPlanRefusal(saved, { ...here, seller: 'seller-b' }, fresh)).toBe(
      'the plan was made for seller seller-a, not seller-b',
    );
  });
});
