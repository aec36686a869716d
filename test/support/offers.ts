// The offers tests build, in each shape offersync handles, with one set of defaults: the request body the
// marketplace takes (what the sandbox accepts), the catalogue's DesiredOffer (its fields are that body less
// external_id), the RemoteOffer the client decodes and the OfferRecord the state store keeps. A test that relies on
// a value passes it as an override, so the value is read where it matters.
import type {
  AccountFields,
  DesiredAccount,
  DesiredItem,
  DesiredOffer,
  DesiredTopUp,
  ImageRef,
  ItemFields,
  TopUpFields,
} from '../../src/catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import type { OfferRecord, StateKind } from '../../src/state/records.ts';
import type { UnitSale } from '../../src/sales/unit-sale.ts';

export function accountBody(externalId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_id: externalId,
    title: `Account ${externalId}`,
    price: 1999,
    game: 'lol',
    status: 'listed',
    level: 30,
    ...extra,
  };
}

export function itemBody(externalId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_id: externalId,
    title: `Item ${externalId}`,
    price: 250,
    type: 'skin',
    game: 'lol',
    server: 'euw',
    stock: 5,
    status: 'listed',
    ...extra,
  };
}

export function topUpBody(externalId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_id: externalId,
    game: 'lol',
    game_name: 'League of Legends',
    offer_title: `RP ${externalId}`,
    offer_amount: 1380,
    offer_unit: 'RP',
    region: 'euw',
    price: 999,
    currency: 'EUR',
    stock: 10,
    status: 'listed',
    active: true,
    ...extra,
  };
}

/** The catalogue file each kind's offers come from unless a test names another. */
export const SOURCE_FILES: Readonly<Record<StateKind, string>> = {
  account: 'accounts/a.json',
  item: 'items/i.json',
  topup: 'top-ups/t.json',
};

function fieldsOf(body: Record<string, unknown>): Record<string, unknown> {
  const { external_id: _id, ...fields } = body;
  return fields;
}

/** An account as the catalogue gives it: the fields of accountBody; `over` replaces whole members (hash, images). */
export function desiredAccount(
  externalId: string,
  fields: Partial<AccountFields> = {},
  over: Partial<DesiredAccount> = {},
): DesiredAccount {
  return {
    kind: 'account',
    externalId,
    hash: 'h',
    source: { file: SOURCE_FILES.account },
    fields: { ...(fieldsOf(accountBody(externalId)) as unknown as AccountFields), ...fields },
    images: [],
    ...over,
  };
}

export function desiredItem(
  externalId: string,
  fields: Partial<ItemFields> = {},
  over: Partial<DesiredItem> = {},
): DesiredItem {
  return {
    kind: 'item',
    externalId,
    hash: 'h',
    source: { file: SOURCE_FILES.item },
    fields: { ...(fieldsOf(itemBody(externalId)) as unknown as ItemFields), ...fields },
    ...over,
  };
}

export function desiredTopUp(
  externalId: string,
  fields: Partial<TopUpFields> = {},
  over: Partial<DesiredTopUp> = {},
): DesiredTopUp {
  return {
    kind: 'topup',
    externalId,
    hash: 'h',
    source: { file: SOURCE_FILES.topup },
    fields: { ...(fieldsOf(topUpBody(externalId)) as unknown as TopUpFields), ...fields },
    ...over,
  };
}

/** An offer as the client decodes it: listed, no fields unless given. */
export function remoteOffer(externalId: string, id: number, over: Partial<RemoteOffer> = {}): RemoteOffer {
  return { id, externalId, status: 'listed', fields: {}, ...over };
}

/**
 * The live offer a desired one became: the server echoes its fields, less what it does not echo (status is the
 * offer's own member; image_ids, parameters and description are not in the representation).
 */
export function remoteOf(
  d: DesiredOffer,
  id: number,
  over: Partial<RemoteOffer> = {},
  fieldsOver: Record<string, unknown> = {},
): RemoteOffer {
  const { status, image_ids: _ids, parameters: _p, description: _d, ...echo } = d.fields as Record<string, unknown>;
  const fields: Record<string, unknown> = { ...echo, ...fieldsOver };
  return { id, externalId: d.externalId, status: (status as string | undefined) ?? 'listed', fields, ...over };
}

/** A state row of an offer offersync manages: listed, never sent, from its kind's source file. */
export function offerRecord(kind: StateKind, externalId: string, over: Partial<OfferRecord> = {}): OfferRecord {
  return {
    kind,
    externalId,
    remoteId: null,
    lastApplied: null,
    credentialsHmac: null,
    imageHashes: [],
    contentHash: null,
    remoteStatus: 'listed',
    remoteUpdatedAt: null,
    managed: true,
    sourceFile: SOURCE_FILES[kind],
    lossyFields: [],
    updatedAt: 0,
    ...over,
  };
}

/** The state row of a desired offer last sent as it is now (its fields, its hash) to remote offer `id`. */
export function recordOf(d: DesiredOffer, id: number, over: Partial<OfferRecord> = {}): OfferRecord {
  return offerRecord(d.kind, d.externalId, {
    remoteId: id,
    lastApplied: { ...d.fields, status: (d.fields as { status?: string }).status ?? 'listed' },
    credentialsHmac: d.kind === 'account' ? (d.credentialsHmac ?? null) : null,
    contentHash: d.hash,
    remoteUpdatedAt: 0,
    sourceFile: d.source.file,
    ...over,
  });
}

/** A gallery image of the catalogue: images/<name>.png. */
export function imageRef(name: string, over: Partial<ImageRef> = {}): ImageRef {
  return {
    path: `images/${name}.png`,
    absPath: `/c/images/${name}.png`,
    sha256: `sha-${name}`,
    sizeBytes: 1,
    mimeType: 'image/png',
    ...over,
  };
}

/** Units of gold-1 (remote 7, 24.99 a unit) sold: the sale the sales tests tell of. */
export function unitSale(over: Partial<UnitSale> = {}): UnitSale {
  return {
    kind: 'item',
    externalId: 'gold-1',
    title: 'Gold 1000',
    price: 2499,
    currency: null,
    quantity: 2,
    remoteId: 7,
    soldCount: 2,
    ...over,
  };
}
