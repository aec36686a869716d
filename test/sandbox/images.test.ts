import { beforeEach, describe, expect, it } from 'vitest';
import { PNG, upload, useSandbox } from './support.ts';

const { sb, api } = useSandbox({ maxUploadBytes: 4096 });
beforeEach(() => sb().reset());

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

describe('images', () => {
  it('uploads with part file or image, answering 201 {data: {id, image_id, url, filename, mime_type}}', async () => {
    const a = await upload(sb(), PNG, { part: 'file', name: 'a.png' });
    expect(a.status).toBe(201);
    expect(Object.keys(a.body.data).sort()).toEqual(['filename', 'id', 'image_id', 'mime_type', 'url']);
    expect(a.body.data).toMatchObject({ id: 1, image_id: 1, mime_type: 'image/png' });
    expect(a.body.data.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.+\.png$/);
    const b = await upload(sb(), JPEG, { part: 'image', name: 'b.png' });
    expect(b.status).toBe(201);
    expect(b.body.data.mime_type).toBe('image/jpeg'); // by magic bytes, not by name
  });

  it('knows gif and webp; refuses other bytes, an empty file and a wrong part name with 422', async () => {
    expect((await upload(sb(), GIF)).body.data.mime_type).toBe('image/gif');
    expect((await upload(sb(), WEBP)).body.data.mime_type).toBe('image/webp');
    for (const [bytes, part] of [
      [Buffer.from('%PDF-1.4 hello'), 'file'],
      [Buffer.alloc(0), 'file'],
      [PNG, 'photo'],
    ] as const) {
      const r = await upload(sb(), bytes, { part });
      expect(r.status).toBe(422);
      expect(typeof r.body.message).toBe('string');
    }
    const notMultipart = await api('POST', '/api/v1/images', { file: 'x' });
    expect(notMultipart.status).toBe(422);
  });

  it('serves the uploaded bytes at the url, without a key, until the image is deleted', async () => {
    const a = await upload(sb(), PNG, { name: 'a.png' });
    const got = await fetch(a.body.data.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
    await api('DELETE', `/api/v1/images/${a.body.data.id}`);
    expect((await fetch(a.body.data.url)).status).toBe(404);
  });

  it('refuses a file over maxUploadBytes with 413', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(5000)]);
    const r = await upload(sb(), big);
    expect(r.status).toBe(413);
    expect(typeof r.body.message).toBe('string');
    expect(sb().dump().images).toHaveLength(0);
  });

  it('lists with original_name, size_bytes and epoch created_at; deletes', async () => {
    await upload(sb(), PNG, { name: 'one.png' });
    await upload(sb(), PNG, { name: 'two.png' });
    const l = await api('GET', '/api/v1/images');
    expect(l.status).toBe(200);
    expect(Object.keys(l.body).sort()).toEqual(['data', 'meta']);
    expect(l.body.data[0]).toMatchObject({ id: 1, image_id: 1, original_name: 'one.png', size_bytes: PNG.length });
    expect(Number.isInteger(l.body.data[0].created_at)).toBe(true);
    expect(Math.abs(l.body.data[0].created_at - Date.now() / 1000)).toBeLessThan(60);
    const d = await api('DELETE', '/api/v1/images/1');
    expect(d.body).toEqual({ success: true, deleted_id: 1 });
    expect((await api('DELETE', '/api/v1/images/1')).status).toBe(404);
    expect((await api('GET', '/api/v1/images')).body.data.map((i: any) => i.id)).toEqual([2]);
    expect((await upload(sb(), PNG, { key: 'bad' })).status).toBe(401);
  });
});
