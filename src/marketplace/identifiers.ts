// Paths of offers and images, and docs/architecture.md, Identity: a server cannot tell an all-digit external_id from
// an id, so such an external_id never goes into a path.
import type { Identifier, ResourceKind } from './marketplace-client.ts';

const ALL_DIGITS = /^\d+$/;

export function isAllDigits(externalId: string): boolean {
  return ALL_DIGITS.test(externalId);
}

/**
 * Whether GET /{kind}/{external_id} can be tried at all: not all digits (it would name an id), not empty,
 * and not a dot segment (a URL parser anywhere on the way would collapse `/accounts/..` to `/`).
 */
export function isPathSafeExternalId(externalId: string): boolean {
  return externalId !== '' && externalId !== '.' && externalId !== '..' && !isAllDigits(externalId);
}

export function assertId(id: number): number {
  if (!Number.isSafeInteger(id) || id < 0)
    throw new TypeError(`offer and image ids are non-negative integers, received ${String(id)}`);
  return id;
}

/** `/accounts` (below the API prefix). */
export function collectionPath(kind: ResourceKind): string {
  return `/${kind}`;
}

/** `/accounts/12`. Only ids: an external_id is resolved to an id first (see findByExternalId). */
export function offerPathById(kind: ResourceKind, id: number): string {
  return `/${kind}/${assertId(id)}`;
}

/** `/accounts/some%2Fexternal%20id`, refused for an external_id that must not go into a path. */
export function offerPathByExternalId(kind: ResourceKind, externalId: string): string {
  if (!isPathSafeExternalId(externalId))
    throw new TypeError(`external_id ${JSON.stringify(externalId)} cannot go into a path`);
  return `/${kind}/${encodeURIComponent(externalId)}`;
}

export function imagePath(id: number): string {
  return `/images/${assertId(id)}`;
}

export function isById(identifier: Identifier): identifier is { readonly id: number } {
  return 'id' in identifier;
}
