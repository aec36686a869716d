// The content hash: the same offer in any format, key order or formatting hashes the same; any change of
// content, images or credentials changes it; credentials enter only as a keyed HMAC.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Hmac256, canonicalJson, credentialsHmac } from '../../src/catalogue/hash.ts';
import { makePng } from '../support/png.ts';
import { cleanup, load, tmpCatalogue } from './support/tmp-catalogue.ts';

afterEach(cleanup);

const PNG = makePng(4, 4, [10, 20, 30]);

describe('offer hash', () => {
  it('is the same across JSON, NDJSON, CSV and YAML, key order and formatting', async () => {
    const files = {
      'images/a.png': PNG,
      'accounts/one.json': JSON.stringify({
        external_id: 'h-json',
        title: 'Gold',
        price: 19.99,
        rank: 'Gold II',
        champions: ['Ahri', 'Lux'],
        level: 30,
        credentials: { login: 'l', password: 'p' },
        images: ['images/a.png'],
        parameters: { level: 30, note: 'x' },
      }),
      'accounts/two.ndjson': `${JSON.stringify({
        images: ['./images/a.png'],
        parameters: { note: 'x', level: '30' },
        credentials: { password: 'p', login: 'l' },
        level: '30',
        champions: 'Ahri, Lux',
        current_rank: 'gold',
        current_division: 'ii',
        price: '19.99',
        title: ' Gold ',
        external_id: 'h-ndjson',
      })}\n`,
      'accounts/three.csv':
        'title,price,external_id,current_rank,current_division,champions,level,' +
        'credentials.login,credentials.password,images,parameters.level,parameters.note\r\n' +
        'Gold,1999,h-csv,GOLD,II,Ahri|Lux,30,l,p,images/a.png,30,x\r\n',
      'accounts/four.yaml':
        'external_id: h-yaml\nprice: "19.99"\ntitle: Gold\nrank: gold_2\nchampions: [Ahri, Lux]\nlevel: ' +
        '30\ncredentials:\n  login: l\n  password: p\nimages:\n  - images/a.png\ngame_data:\n  level: 30\n  note: x\n',
    };
    // Each in a catalogue of its own: one catalogue selling one account four times is an error (same-account.ts).
    const { 'images/a.png': image, ...accounts } = files;
    const offers = [];
    for (const [name, text] of Object.entries(accounts)) {
      const s = await load(tmpCatalogue({ 'images/a.png': image, [name]: text }));
      expect(s.problems).toEqual([]);
      offers.push(...s.offers);
    }
    expect(offers).toHaveLength(4);
    // Equal content apart from the external_id: compare the hash of each with its id swapped in.
    const fields = offers.map((o) => canonicalJson(o.fields));
    expect(new Set(fields).size).toBe(1);
    const hmacs = offers.map((o) => (o.kind === 'account' ? o.credentialsHmac : undefined));
    expect(new Set(hmacs).size).toBe(1);
    expect(hmacs[0]).toBe(credentialsHmac('test-key', { login: 'l', password: 'p' }));
  });

  it('is stable for one offer rewritten with another key order and indentation', async () => {
    const a = await load(
      tmpCatalogue({ 'items/x.json': '{"external_id":"x","title":"T","price":100,"stock":2,"type":"skin"}' }),
    );
    const b = await load(
      tmpCatalogue({
        'items/y.json':
          '[\n    {\n      "type": "skin",\n      "stock": "2",\n      "price": 100,\n      "title": "T",\n      ' +
          '"external_id": "x"\n    }\n]\n',
      }),
    );
    expect(a.offers[0]!.hash).toBe(b.offers[0]!.hash);
  });

  it('changes with a field, an image content, credentials, the kind and the external_id', async () => {
    const base = { external_id: 'x', title: 'T', price: 100, credentials: { login: 'l' }, images: ['images/a.png'] };
    const hashOf = async (offer: object, png = PNG, folder = 'accounts'): Promise<string> => {
      const s = await load(tmpCatalogue({ 'images/a.png': png, [`${folder}/a.json`]: JSON.stringify(offer) }));
      return s.offers[0]!.hash;
    };
    const h0 = await hashOf(base);
    const variants = await Promise.all([
      hashOf({ ...base, price: 101 }),
      hashOf(base, makePng(4, 4, [10, 20, 31])),
      hashOf({ ...base, credentials: { login: 'm' } }),
      hashOf({ ...base, external_id: 'y' }),
      hashOf({ ...base, images: [] }),
    ]);
    for (const h of variants) expect(h).not.toBe(h0);
    const itemHash = await hashOf({ external_id: 'x', title: 'T', price: 100 }, PNG, 'items');
    const accountHash = await hashOf({ external_id: 'x', title: 'T', price: 100 });
    expect(itemHash).not.toBe(accountHash);
  });

  it('the credentials HMAC depends on the key and is never the credentials themselves', async () => {
    const dir = tmpCatalogue({
      'accounts/a.json':
        '{"external_id":"x","title":"T","price":1,"credentials":{"login":"secret-login","password":"secret-pw"}}',
    });
    const a = await load(dir, { credentialsKey: 'k1' });
    const b = await load(dir, { credentialsKey: Buffer.from('k2') });
    const ha = a.offers[0]!.kind === 'account' ? a.offers[0]!.credentialsHmac : '';
    const hb = b.offers[0]!.kind === 'account' ? b.offers[0]!.credentialsHmac : '';
    expect(ha).toMatch(/^[0-9a-f]{64}$/);
    expect(ha).not.toBe(hb);
    expect(a.offers[0]!.hash).not.toBe(b.offers[0]!.hash);
    expect(JSON.stringify({ ...a.offers[0], credentials: undefined })).not.toMatch(/secret/);
    writeFileSync(
      join(dir, 'accounts/a.json'),
      '{"external_id":"x","title":"T","price":1,"credentials":{"password":"secret-pw","login":"secret-login"}}',
    );
    const c = await load(dir, { credentialsKey: 'k1' });
    expect(c.offers[0]!.hash).toBe(a.offers[0]!.hash);
  });

  it('Hmac256 equals node:crypto HMAC-SHA256 for short, block-sized and long keys', () => {
    for (const key of ['k', 'x'.repeat(64), 'y'.repeat(65), Buffer.from([0, 1, 255])]) {
      expect(new Hmac256(key).hex('{"login":"é"}')).toBe(
        createHmac('sha256', key).update('{"login":"é"}').digest('hex'),
      );
    }
  });
});
