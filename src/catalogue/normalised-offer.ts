// What a kind's normaliser makes of one raw record: the offer typed as its kind, or the problems that keep it out.
// The loader (catalogue.ts) adds what needs I/O or a key (image checks, the content hash, the credentials HMAC)
// to make the DesiredOffer.
import type { CatalogueProblem } from './catalogue-problem.ts';
import type { AccountCredentials, AccountFields, ItemFields, OfferKind, TopUpFields } from './desired-offer.ts';

/** A gallery image an offer names, not read yet. */
export interface ImagePathRef {
  readonly path: string;
  readonly pointer?: string;
  readonly field: string;
  /** Where the image's name is inside the record, to locate a problem with it. */
  readonly at: readonly (string | number)[];
}

export interface NormalisedAccount {
  readonly kind: 'account';
  readonly externalId: string;
  /** Sorted keys, no absent field: hashed as they are. */
  readonly fields: AccountFields;
  /** Kept in memory only, to be sent. */
  readonly credentials?: AccountCredentials;
  readonly images: readonly ImagePathRef[];
}

export interface NormalisedItem {
  readonly kind: 'item';
  readonly externalId: string;
  readonly fields: ItemFields;
}

export interface NormalisedTopUp {
  readonly kind: 'topup';
  readonly externalId: string;
  readonly fields: TopUpFields;
}

export type NormalisedOffer = NormalisedAccount | NormalisedItem | NormalisedTopUp;
export type NormalisedOfferOf<K extends OfferKind> = Extract<NormalisedOffer, { readonly kind: K }>;

/** Where the record is in its file. */
export interface RecordSource {
  readonly line?: number;
  readonly pointer?: string;
}

interface NormalisedBase {
  /** Errors and warnings, each naming the file, the external_id when known, the field and what to do. */
  readonly problems: readonly CatalogueProblem[];
  readonly source: RecordSource;
}

export interface ValidRecord<O extends NormalisedOffer> extends NormalisedBase {
  readonly valid: true;
  readonly externalId: string;
  readonly offer: O;
}

export interface InvalidRecord extends NormalisedBase {
  readonly valid: false;
  /** Undefined when the record has no usable external_id: its identity is unknown. */
  readonly externalId?: string;
  readonly offer?: undefined;
}

export type Normalised<O extends NormalisedOffer> = ValidRecord<O> | InvalidRecord;
