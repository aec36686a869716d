// The canonical form of what the seller wants listed. Produced by the catalogue loader, consumed by the
// planner. Field names inside `fields` are the API's own (snake_case), already normalised:
// prices in integer cents, ranks in one canonical form, lists as arrays, strings trimmed, absent stays absent.

export const OFFER_KINDS = ['account', 'item', 'topup'] as const;
export type OfferKind = (typeof OFFER_KINDS)[number];

/** Where an offer (or a problem) came from, for messages a person will read. */
export interface SourceLocation {
  /** Path relative to the catalogue directory, with forward slashes. */
  readonly file: string;
  /** 1-based line for CSV and NDJSON. */
  readonly line?: number;
  /** RFC 6901 JSON pointer for JSON and YAML (e.g. "/2/price"). */
  readonly pointer?: string;
}

/** A value as a catalogue file can write it: what JSON, YAML and CSV files hold. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * Account details (`parameters`): the keys the document names are normalised (level, rank, ...); any other is
 * passed on as written.
 */
export type AccountDetails = { readonly [detail: string]: JsonValue };

export interface AccountCredentials {
  readonly login?: string;
  readonly password?: string;
  readonly email_login?: string;
  readonly email_password?: string;
}

/** Account fields as they will be sent (2.1), minus credentials and images. */
export interface AccountFields {
  readonly title: string;
  readonly price: number;
  readonly game?: string;
  readonly server?: string;
  readonly status?: string;
  readonly description?: string;
  readonly current_rank?: string | number;
  readonly current_division?: string | number;
  readonly current_lp?: number;
  readonly flex_rank?: string | number;
  readonly flex_division?: string | number;
  readonly flex_lp?: number;
  readonly previous_rank?: string | number;
  readonly previous_division?: string | number;
  readonly previous_lp?: number;
  readonly level?: number;
  readonly blue_essence?: number;
  readonly game_points?: number;
  readonly winrate_percent?: number;
  readonly champion_count?: number;
  readonly skin_count?: number;
  readonly champions?: readonly string[];
  readonly skins?: readonly string[];
  readonly roles?: readonly string[];
  readonly in_game_name?: string;
  /** `parameters` and `game_data` merged (they are aliases); sent as `parameters`. */
  readonly parameters?: AccountDetails;
  /** Image ids the seller wrote explicitly (any of the four forms, normalised to integers). */
  readonly image_ids?: readonly number[];
  readonly image_urls?: readonly string[];
}

export interface ItemFields {
  readonly title: string;
  readonly price: number;
  readonly type?: string;
  readonly game?: string;
  readonly server?: string;
  readonly stock?: number;
  readonly status?: string;
  readonly description?: string;
}

export interface TopUpFields {
  readonly game?: string;
  readonly game_name?: string;
  readonly service_label?: string;
  readonly offer_key?: string;
  readonly offer_title?: string;
  readonly offer_amount?: number;
  readonly offer_unit?: string;
  readonly region?: string;
  readonly platform?: string;
  readonly price?: number;
  readonly currency?: string;
  readonly stock?: number;
  readonly min_quantity?: number;
  readonly waiting_time_value?: number;
  readonly waiting_time_unit?: 'minutes' | 'hours' | 'days';
  readonly instructions?: string;
  readonly image?: string;
  readonly active?: boolean;
  readonly status?: string;
}

/** A gallery image an offer references by catalogue-relative path. */
export interface ImageRef {
  /** Path relative to the catalogue directory, forward slashes. */
  readonly path: string;
  readonly absPath: string;
  readonly sha256: string;
  readonly sizeBytes: number;
  readonly mimeType: string;
}

interface DesiredBase {
  readonly externalId: string;
  /** Stable hash of the canonical content (fields + image hashes + credentials HMAC). */
  readonly hash: string;
  readonly source: SourceLocation;
}

export interface DesiredAccount extends DesiredBase {
  readonly kind: 'account';
  readonly fields: AccountFields;
  /** Kept in memory only, to be sent; never stored or logged. */
  readonly credentials?: AccountCredentials;
  /** HMAC-SHA256 (keyed) of the canonical credentials, to notice a change without storing them. */
  readonly credentialsHmac?: string;
  /** Keyed HMAC of the normalised login (account-fingerprint.ts): which physical account this offer sells. */
  readonly loginFingerprint?: string;
  readonly images: readonly ImageRef[];
}

export interface DesiredItem extends DesiredBase {
  readonly kind: 'item';
  readonly fields: ItemFields;
}

export interface DesiredTopUp extends DesiredBase {
  readonly kind: 'topup';
  readonly fields: TopUpFields;
}

export type DesiredOffer = DesiredAccount | DesiredItem | DesiredTopUp;
