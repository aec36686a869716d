// Reading a bulk route's 422 in the marketplace's own words: the array key it requires, the batch limit.
import { describe, expect, it } from 'vitest';
import { batchLimit, requiredKey } from '../../src/sync/bulk-learning.ts';

describe('bulk-learning', () => {
  it.each([
    ['items array is required.', 'items'],
    ['POST /api/v1/items/bulk-update: 422 The items array is required.', 'items'],
    ['The Offers field is required.', 'offers'],
    ['The offers field must be an array of objects.', undefined],
    ['Validation failed', undefined],
  ])('requiredKey(%j) is %j', (message, key) => {
    expect(requiredKey(message)).toBe(key);
  });

  it.each([
    ['The offers array may contain at most 100 elements.', 100],
    ['The ids may not have more than 250 items.', 250],
    ['maximum of 50 offers per request', 50],
    ['at most 0 elements', undefined],
    ['The items array is required.', undefined],
  ])('batchLimit(%j) is %j', (message, limit) => {
    expect(batchLimit(message)).toBe(limit);
  });
});
