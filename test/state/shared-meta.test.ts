// Meta every seller of one state db shares (what the marketplace allows the address they send from): kept apart
// from each seller's own, and, in PostgreSQL, read alike by every seller of the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_BACKENDS } from '../support/state-backends.ts';

describe.each(STATE_BACKENDS.map((make) => make()))('$name shared meta', (backend) => {
  beforeAll(() => backend.setup(), 60_000);
  afterAll(() => backend.teardown());

  it("is kept apart from the seller's own meta under the same key", async () => {
    const store = await backend.open(() => 0);
    try {
      expect(await store.getSharedMeta('queue.window.address:m')).toBeUndefined();
      await store.setMeta('queue.window.address:m', 'own');
      await store.setSharedMeta('queue.window.address:m', 'shared');
      await store.setSharedMeta('queue.window.address:m', 'shared again');
      expect(await store.getMeta('queue.window.address:m')).toBe('own');
      expect(await store.getSharedMeta('queue.window.address:m')).toBe('shared again');
    } finally {
      await store.close();
    }
  });

  it.runIf(backend.name === 'postgres')('is read alike by every seller of one database', async () => {
    const a = await backend.open(() => 0);
    const b = await backend.open(() => 0);
    try {
      await a.setSharedMeta('queue.window.address:n', '{"limit":{"requests":300,"seconds":60}}');
      expect(await b.getSharedMeta('queue.window.address:n')).toBe('{"limit":{"requests":300,"seconds":60}}');
      await a.setMeta('own', 'a');
      expect(await b.getMeta('own')).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
