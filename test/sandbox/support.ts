// A sandbox per test file and a small fetch helper. Plain fetch on purpose: these tests check the
// sandbox against the document, not the client.
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/sandbox-server.ts';

export const KEY = 'test-key';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export type Api = (
  method: string,
  path: string,
  body?: unknown,
  init?: { key?: string | null; headers?: Record<string, string>; raw?: BodyInit },
) => Promise<Answer>;

export function useSandbox(opts: SandboxOptions = {}): { sb: () => RunningSandbox; api: Api } {
  let sandbox: RunningSandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ apiKeys: [KEY], ...opts });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  const sb = () => {
    if (!sandbox) throw new Error('sandbox not started');
    return sandbox;
  };
  const api: Api = async (method, path, body, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    const key = init.key === undefined ? KEY : init.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: BodyInit | undefined = init.raw;
    if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(sb().url + path, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return { sb, api };
}

export const account = (n: number | string, extra: Record<string, unknown> = {}) => ({
  external_id: `acc-${n}`,
  title: `Account ${n}`,
  price: 1000,
  status: 'listed',
  ...extra,
});

/** A 1x1 PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63' +
    'f8cfc0f01f0005000201e2b4a0ae0000000049454e44ae426082',
  'hex',
);

export async function upload(
  sb: RunningSandbox,
  bytes: Uint8Array,
  opts: { part?: string; name?: string; key?: string } = {},
): Promise<Answer> {
  const form = new FormData();
  form.append(opts.part ?? 'file', new Blob([new Uint8Array(bytes)]), opts.name ?? 'pic.png');
  const res = await fetch(`${sb.url}/api/v1/images`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opts.key ?? KEY}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}
