// Reading a bulk route's 422 in the marketplace's own words: the array key it requires, the batch limit.
import { describe, expect, it } from 'vitest';
import { batchLimit, requiredKey } from '../../../src/sync/execute/bulk-learning.ts';

describe('bulk-learning', () => {
  it.each([
    ['items array is required.', 'items'],
    ['POST /api/v1/items/bulk-update: 422 The items array is required.', 'items'],
    ['The Offers field is required.', 'offers'],
    ['The element_list list is required.', 'element_list'],
    ['the ids2 parameter are required', 'ids2'],
    ['The 2offers array is required.', undefined],
    ['The offers array is requiredness', undefined],
    ['The offers array is needed.', undefined],
    ['The offers field must be an array of objects.', undefined],
    ['Validation failed', undefined],
  ])('requiredKey(%j) is %j', (message, key) => {
    expect(requiredKey(message)).toBe(key);
  });

  it.each([
    ['The offers array may contain at most 100 elements.', 100],
    ['The ids may not have more than 250 items.', 250],
    ['maximum of 50 offers per request', 50],
    ['no more than 20 at once', 20],
    ['must not have more than 30 elements', 30],
    ['not more than 31', 31],
    ['the maximum 32 per call', 32],
    ['max is 40', 40],
    ['Max of 45 ids', 45],
    ['maximum is 46', 46],
    ['up to 60 elements', 60],
    ['limit is 70', 70],
    ['limit of 80', 80],
    ['limit 90', 90],
    ['at most 100x', undefined],
    ['at most 9007199254740993 elements', undefined],
    ['more than 5 elements', undefined],
    ['at most 0 elements', undefined],
    ['at most 1 element', 1],
    ['The items array is required.', undefined],
  ])('batchLimit(%j) is %j', (message, limit) => {
    expect(batchLimit(message)).toBe(limit);
  });
});
