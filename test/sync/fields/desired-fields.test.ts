// A desired offer's fields as they will be sent: its status or the default, and for an account the image_ids the
// seller wrote followed by its gallery's uploaded images, left out while one of them is not uploaded yet.
import { describe, expect, it } from 'vitest';
import type { DesiredAccount, DesiredItem, ImageRef } from '../../../src/catalogue/desired-offer.ts';
import { effectiveFields, imageIdsOf } from '../../../src/sync/fields/desired-fields.ts';
import { desiredAccount, desiredItem, imageRef } from '../../support/offers.ts';

// The fields of these cases, nothing more: the outputs below list them all.
const account = (fields: Partial<DesiredAccount['fields']>, images: ImageRef[] = []): DesiredAccount =>
  desiredAccount('acc-1', {}, { fields: { title: 'T', price: 1, ...fields }, images });
const item = desiredItem('it-1', {}, { fields: { title: 'T', price: 1 } });
const uploaded = new Map([
  ['sha-a', 501],
  ['sha-b', 502],
]);
const imageId = (sha: string) => uploaded.get(sha);
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
    expect(effectiveFields(account({ image_ids: [7] }, [imageRef('a'), imageRef('b')]), 'listed', imageId)).toEqual({
      fields: { title: 'T', price: 1, image_ids: [7, 501, 502], status: 'listed' },
      imagesResolved: true,
    });
  });

  it('leaves image_ids out while a gallery image is not uploaded', () => {
    expect(effectiveFields(account({ image_ids: [7] }, [imageRef('a'), imageRef('new')]), 'listed', imageId)).toEqual({
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
    expect(imageIdsOf(account({}, [imageRef('a'), imageRef('x')]), imageId)).toBeNull();
  });

  it('lists the explicit ids, then the gallery ids in order', () => {
    expect(imageIdsOf(account({ image_ids: [9, 8] }), imageId)).toEqual([9, 8]);
    expect(imageIdsOf(account({}, [imageRef('b'), imageRef('a')]), imageId)).toEqual([502, 501]);
  });
});
