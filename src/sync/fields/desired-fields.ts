// The fields of a desired offer as they will be sent: the default status stated, the gallery resolved to
// image_ids when every image of it is uploaded. Planner and executor both read an offer through this.
import type { DesiredAccount, DesiredOffer } from '../../catalogue/desired-offer.ts';
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
  if (d.kind !== 'account') return { fields: copyFields(d.fields, status, false), imagesResolved: true };
  const ids = imageIdsOf(d, imageId);
  if (ids === null) return { fields: copyFields(d.fields, status, true), imagesResolved: false };
  return { fields: copyFields(d.fields, status, true, ids), imagesResolved: true };
}

/**
 * `{ ...fields, status }`, without image_ids when `dropImageIds`, then `imageIds` when given. A copy loop, not
 * an object spread: once the planner has seen all three kinds, V8 gives every spread copy a hidden class of
 * its own, and 100,000 of them cost 20 MB.
 */
function copyFields(
  fields: OfferFields,
  status: string,
  dropImageIds: boolean,
  imageIds?: readonly number[],
): OfferFields {
  const out: Record<string, unknown> = {};
  for (const k in fields) {
    if (dropImageIds && k === 'image_ids') continue;
    out[k] = k === 'status' ? status : fields[k as keyof OfferFields];
  }
  if (!Object.hasOwn(out, 'status')) out.status = status;
  if (imageIds !== undefined) out.image_ids = imageIds;
  return out as OfferFields;
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
