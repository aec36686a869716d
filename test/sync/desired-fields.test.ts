// A desired offer's fields as they will be sent: its status or the default, and for an account the image_ids the
// seller wrote followed by its gallery's uploaded images, left out while one of them is not uploaded yet.
import { describe, expect, it } from 'vitest';
import type { DesiredAccount, DesiredItem, ImageRef } from '../../src/catalogue/desired-offer.ts';
import { effectiveFields, imageIdsOf } from '../../src/sync/desired-fields.ts';

const img = (sha256: string): ImageRef => ({
  path: `${sha256}.png`,
  absPath: '/x',
  sha256,
  sizeBytes: 1,
  mimeType: 'image/png',
});
const uploaded = new Map([
  ['sha-a', 501],
  ['sha-b', 502],
]);
const imageId = (sha: string) => uploaded.get(sha);
const account = (fields: Partial<DesiredAccount['fields']>, images: ImageRef[] = []): DesiredAccount => ({
  kind: 'account',
  externalId: 'acc-1',
  hash: 'h',
  source: { file: 'a.json' },
  fields: { title: 'T', price: 1, ...fields },
  images,
});
const item: DesiredItem = {
  kind: 'item',
  externalId: 'it-1',
  hash: 'h',
  source: { file: 'i.json' },
  fields: { title: 'T', price: 1 },
};

describe('effectiveFields', () => {
  it('states the default status when the catalogue gives none, and keeps the one it gives', () => {
    expect(effectiveFields(item, 'listed', imageId)).toEqual({
      fields: { title: 'T', price: 1, status: 'listed' },
      imagesResolved: true,
    });
    const paused = effectiveFields({ ...item, fields: { status: 'paused', title: 'T', price: 1 } }, 'listed', imageId);
    expect(paused.fields).toEqual({ status: 'paused', title: 'T', price: 1 });
    expect(Object.keys(paused.fields)).toEqual(['status', 'title', 'price']);
  });

  it('states the default status for a status key left undefined', () => {
    const d: DesiredItem = { ...item, fields: { title: 'T', price: 1, status: undefined } };
    expect(effectiveFields(d, 'listed', imageId).fields).toEqual({ title: 'T', price: 1, status: 'listed' });
  });

  it('sends an account its explicit image_ids then its uploaded gallery', () => {
    expect(effectiveFields(account({ image_ids: [7] }, [img('sha-a'), img('sha-b')]), 'listed', imageId)).toEqual({
      fields: { title: 'T', price: 1, image_ids: [7, 501, 502], status: 'listed' },
      imagesResolved: true,
    });
  });

  it('leaves image_ids out while a gallery image is not uploaded', () => {
    expect(effectiveFields(account({ image_ids: [7] }, [img('sha-a'), img('sha-new')]), 'listed', imageId)).toEqual({
      fields: { title: 'T', price: 1, status: 'listed' },
      imagesResolved: false,
    });
  });

  it('sends no image_ids for an account that states none', () => {
    const r = effectiveFields(account({}), 'listed', imageId);
    expect(r).toEqual({ fields: { title: 'T', price: 1, status: 'listed' }, imagesResolved: true });
    expect(Object.hasOwn(r.fields, 'image_ids')).toBe(false);
  });

  it('leaves the desired fields as they were', () => {
    const d = account({ image_ids: [7] });
    const r = effectiveFields(d, 'listed', imageId);
    expect(r.fields).not.toBe(d.fields);
    expect(d.fields).toEqual({ title: 'T', price: 1, image_ids: [7] });
  });
});

describe('imageIdsOf', () => {
  it('is undefined when the account states no image, null while one is not uploaded', () => {
    expect(imageIdsOf(account({}), imageId)).toBeUndefined();
    expect(imageIdsOf(account({ image_ids: [] }), imageId)).toBeUndefined();
    expect(imageIdsOf(account({}, [img('sha-a'), img('sha-x')]), imageId)).toBeNull();
  });

  it('lists the explicit ids, then the gallery ids in order', () => {
    expect(imageIdsOf(account({ image_ids: [9, 8] }), imageId)).toEqual([9, 8]);
    expect(imageIdsOf(account({}, [img('sha-b'), img('sha-a')]), imageId)).toEqual([502, 501]);
  });
});
