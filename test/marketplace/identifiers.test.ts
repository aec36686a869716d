// Paths and docs/architecture.md, Identity: an all-digit external_id never goes into a path.
import { describe, expect, it } from 'vitest';
import {
  imagePath,
  isPathSafeExternalId,
  offerPathByExternalId,
  offerPathById,
} from '../../src/marketplace/identifiers.ts';

describe('isPathSafeExternalId', () => {
  it.each([
    ['acc-1', true],
    ['12a', true],
    ['a b/c?d#e', true],
    ['12345', false],
    ['007', false],
    ['', false],
    ['.', false],
    ['..', false],
    ['12.0', true], // the answer is checked: a server reading it as id 12 answers another external_id
  ])('%j -> %j', (externalId, safe) => {
    expect(isPathSafeExternalId(externalId)).toBe(safe);
  });
});

describe('paths', () => {
  it.each([
    ['accounts', 12, '/accounts/12'],
    ['items', 0, '/items/0'],
    ['top-ups', 7, '/top-ups/7'],
  ] as const)('%s by id %j', (kind, id, path) => {
    expect(offerPathById(kind, id)).toBe(path);
  });
  it.each([
    ['acc-1', '/accounts/acc-1'],
    ['a b/c?d#e', '/accounts/a%20b%2Fc%3Fd%23e'],
    ['ünï', '/accounts/%C3%BCn%C3%AF'],
    ['%2e%2e', '/accounts/%252e%252e'],
  ])('by external_id %j is URL-encoded', (externalId, path) => {
    expect(offerPathByExternalId('accounts', externalId)).toBe(path);
  });
  it.each(['123', '', '..'])('refuses external_id %j in a path', (externalId) => {
    expect(() => offerPathByExternalId('accounts', externalId)).toThrow(TypeError);
  });
  it.each([-1, 1.5, Number.NaN])('refuses id %j', (id) => {
    expect(() => offerPathById('accounts', id)).toThrow(TypeError);
    expect(() => imagePath(id)).toThrow(TypeError);
  });
});
