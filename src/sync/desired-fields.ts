// The fields of a desired offer as they will be sent: the default status stated, the gallery resolved to
// image_ids when every image of it is uploaded. Planner and executor both read an offer through this.
import type { DesiredAccount, DesiredOffer } from '../catalogue/desired-offer.ts';
import type { OfferFields } from './offer-fields.ts';

/** The marketplace image id of an uploaded gallery image, by its sha256; undefined when not uploaded yet. */
export type ImageIdOf = (sha256: string) => number | undefined;

export interface EffectiveFields {
  /** Without image_ids while a gallery image is not uploaded yet. */
  readonly fields: OfferFields;
  readonly imagesResolved: boolean;
}

export function effectiveFields(d: DesiredOffer, defaultStatus: string, imageId: ImageIdOf): EffectiveFields {
  const status = d.fields.status ?? defaultStatus;
  if (d.kind !== 'account') return { fields: { ...d.fields, status }, imagesResolved: true };
  const { image_ids: _explicit, ...rest } = d.fields;
  const fields: OfferFields = { ...rest, status };
  const ids = imageIdsOf(d, imageId);
  if (ids === null) return { fields, imagesResolved: false };
  return { fields: ids === undefined ? fields : { ...fields, image_ids: ids }, imagesResolved: true };
}

/**
 * The image_ids an account sends: the ids the seller wrote, then its gallery's uploaded images. undefined when
 * it states none; null while a gallery image is not uploaded.
 */
export function imageIdsOf(d: DesiredAccount, imageId: ImageIdOf): readonly number[] | null | undefined {
  const explicit = d.fields.image_ids ?? [];
  if (d.images.length === 0 && explicit.length === 0) return undefined;
  const ids: number[] = [...explicit];
  for (const img of d.images) {
    const id = imageId(img.sha256);
    if (id === undefined) return null;
    ids.push(id);
  }
  return ids;
}
