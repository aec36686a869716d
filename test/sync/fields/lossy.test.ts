// Lossy fields: a field the server echoes with a value other than the one just written is compared with last
// applied only from then on, so the daemon does not patch the same offer on every tick.
import { describe, expect, it } from 'vitest';
import type { RemoteOffer } from '../../../src/marketplace/marketplace-client.ts';
import { lossyFields } from '../../../src/sync/fields/lossy.ts';

const echo = (fields: Record<string, unknown>, status?: string): RemoteOffer => ({
  id: 7,
  externalId: 'acc-1',
  ...(status === undefined ? {} : { status }),
  fields,
});

describe('lossyFields', () => {
  it('names a field echoed with another value, sorted, and not one echoed as sent (in any key order)', () => {
    const sent = { title: 'T', price: 100, current_rank: 'gold', parameters: { a: 1, b: 2 } };
    const echoed = echo({ title: 'T', price: 100, current_rank: 17, parameters: { b: 2, a: 1 }, server: 'EU' });
    expect(lossyFields(sent, echoed)).toEqual(['current_rank']);
    expect(lossyFields({ title: 'x', price: 1, game: 'g' }, echo({ title: 'y', price: 2, game: 'g' }))).toEqual([
      'price',
      'title',
    ]);
  });

  it('does not name a field the server does not echo', () => {
    expect(lossyFields({ title: 'T', description: 'long' }, echo({ title: 'T' }))).toEqual([]);
  });

  it('reads the echoed status, kept apart from the other fields', () => {
    expect(lossyFields({ status: 'listed' }, echo({}, 'active'))).toEqual(['status']);
    expect(lossyFields({ status: 'listed' }, echo({}, 'listed'))).toEqual([]);
  });

  it('keeps the fields already known lossy, once each, even when echoed as sent this time', () => {
    expect(lossyFields({ title: 'T', price: 5 }, echo({ title: 'T', price: 6 }), ['title', 'price', 'zeta'])).toEqual([
      'price',
      'title',
      'zeta',
    ]);
    expect(lossyFields({ title: 'T' }, echo({ title: 'T' }))).toEqual([]);
  });
});
