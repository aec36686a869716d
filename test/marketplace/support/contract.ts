// Shared setup of the contract tests: a real sandbox on 127.0.0.1 and the real client against it.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSandbox } from '../../../src/sandbox/sandbox-server.ts';
import type { MarketplaceClient } from '../../../src/marketplace/marketplace-client.ts';
import { createMarketplaceClient } from '../../../src/marketplace/undici-marketplace-client.ts';
import type { MarketplaceClientOptions } from '../../../src/marketplace/marketplace-client-options.ts';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
export type SandboxOptions = NonNullable<Parameters<typeof startSandbox>[0]>;

export const SANDBOX_KEY = 'contract-key-7d1f2a';

export async function sandboxAndClient(
  sandboxOpts: SandboxOptions = {},
  clientOpts: Partial<MarketplaceClientOptions> = {},
): Promise<{ sandbox: Sandbox; client: MarketplaceClient; close(): Promise<void> }> {
  const sandbox = await startSandbox({ port: 0, apiKeys: [SANDBOX_KEY], rateLimit: null, ...sandboxOpts });
  const client = createMarketplaceClient({ baseUrl: sandbox.url, apiKey: SANDBOX_KEY, timeoutMs: 5000, ...clientOpts });
  return {
    sandbox,
    client,
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}

/**
 * The setup of a contract test file (or describe block): a sandbox and a client started before its tests and
 * closed after them, faults cleared after each test. The objects returned stand for the ones started.
 */
export function useContract(
  sandboxOpts: SandboxOptions = {},
  clientOpts: Partial<MarketplaceClientOptions> = {},
): { sandbox: Sandbox; client: MarketplaceClient } {
  let started: Awaited<ReturnType<typeof sandboxAndClient>> | undefined;
  beforeAll(async () => {
    started = await sandboxAndClient(sandboxOpts, clientOpts);
  });
  afterAll(async () => {
    await started?.close();
  });
  afterEach(() => started?.sandbox.setFaults({}));
  const current = () => {
    if (!started) throw new Error('useContract: the sandbox is started in beforeAll; use it inside a test');
    return started;
  };
  return { sandbox: standIn(() => current().sandbox), client: standIn(() => current().client) };
}

/** An object that stands for whatever pick() returns when it is used: set up in a hook, named before it. */
export function standIn<T extends object>(pick: () => T): T {
  return new Proxy({} as T, {
    get(_t, prop) {
      const target = pick();
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

let seq = 0;
/** A fresh external_id per call, so tests in one sandbox never collide. */
export function ext(prefix: string): string {
  return `${prefix}-${process.pid}-${++seq}`;
}

/** Every page of a list, flattened. */
export async function collect<T>(pages: AsyncIterable<{ readonly items: readonly T[] }>): Promise<T[]> {
  const out: T[] = [];
  for await (const p of pages) out.push(...p.items);
  return out;
}

/** The counters' routes that match, e.g. every GET of one account path. */
export function routesMatching(sandbox: Sandbox, re: RegExp): string[] {
  return Object.keys(sandbox.counters().byRoute).filter((r) => re.test(r));
}

/** A 1x1 PNG. */
export const PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
);
