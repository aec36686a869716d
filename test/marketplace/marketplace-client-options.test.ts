// Options refused at construction, with the option's name and what was expected.
import { describe, expect, it } from 'vitest';
import {
  isLoopbackHost,
  MarketplaceClientOptionsError,
  resolveOptions,
} from '../../src/marketplace/marketplace-client-options.ts';

const base = { baseUrl: 'https://market.example', apiKey: 'k-123456' };

describe('resolveOptions', () => {
  it('fills the defaults', () => {
    const r = resolveOptions(base);
    expect(r).toMatchObject({ origin: 'https://market.example', prefix: '/api/v1', timeoutMs: 30_000, connections: 8 });
    expect(r.list).toEqual({
      sortParam: 'sort',
      perPageParam: 'per_page',
      pageParam: 'page',
      filterParam: 'filter[external_id]',
      perPage: 100,
      maxPages: 10_000,
    });
    expect(r.userAgent).toMatch(/^offersync\/\d+\.\d+\.\d+/);
    expect(r).toMatchObject({ idleTimeoutMs: 10_000, maxBodyBytes: { list: 16 * 1024 * 1024, single: 1024 * 1024 } });
  });

  it('keeps the base URL path before the API prefix', () => {
    expect(resolveOptions({ ...base, baseUrl: 'https://host/shop/' }).prefix).toBe('/shop/api/v1');
  });

  it.each([
    ['empty key', { ...base, apiKey: '' }, 'apiKey'],
    ['blank key', { ...base, apiKey: '   ' }, 'apiKey'],
    ['http to another host', { ...base, baseUrl: 'http://market.example' }, 'baseUrl'],
    ['not a URL', { ...base, baseUrl: 'market.example' }, 'baseUrl'],
    ['ftp', { ...base, baseUrl: 'ftp://market.example' }, 'baseUrl'],
    ['zero timeout', { ...base, timeoutMs: 0 }, 'timeoutMs'],
    ['fractional connections', { ...base, connections: 1.5 }, 'connections'],
    ['empty sort param', { ...base, list: { sortParam: '' } }, 'list.sortParam'],
    ['zero page size', { ...base, list: { perPage: 0 } }, 'list.perPage'],
    ['zero idle timeout', { ...base, idleTimeoutMs: 0 }, 'idleTimeoutMs'],
    ['a fractional list cap', { ...base, maxBodyBytes: { list: 1.5 } }, 'maxBodyBytes.list'],
    ['a negative single cap', { ...base, maxBodyBytes: { single: -1 } }, 'maxBodyBytes.single'],
  ])('refuses %s, naming %s', (_name, opts, option) => {
    expect(() => resolveOptions(opts)).toThrow(MarketplaceClientOptionsError);
    expect(() => resolveOptions(opts)).toThrow(`option ${option}: expected`);
  });

  it('never puts the key in its error', () => {
    try {
      resolveOptions({ apiKey: 'super-secret-key', baseUrl: 'http://market.example' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).not.toContain('super-secret-key');
    }
  });

  it.each([
    'http://127.0.0.1:8080',
    'http://127.3.4.5',
    'http://[::1]:9000',
    'http://localhost:1',
    'https://anything.example',
  ])('allows %s', (baseUrl) => {
    expect(() => resolveOptions({ ...base, baseUrl })).not.toThrow();
  });

  it('allows http to another host with insecure', () => {
    expect(() => resolveOptions({ ...base, baseUrl: 'http://market.example', insecure: true })).not.toThrow();
  });

  it('allows an empty filter parameter (always scan)', () => {
    expect(resolveOptions({ ...base, list: { filterParam: '' } }).list.filterParam).toBe('');
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['[::1]', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['localhost.example.com', false],
    ['127.0.0.1.nip.io', false],
  ])('%s -> %j', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
