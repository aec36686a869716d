// What the benches that run `offersync reconcile` as its own process give it: an offersync.yaml (the sandbox's
// address, ./catalogue, a sqlite file under ./state, lists of 100, warnings only) and an environment holding no
// more than PATH, the API key, the state URL when the state is in PostgreSQL, and the bench's own variables.

/** No rate limit: the client goes as fast as 16 requests at once allow. */
export const UNLIMITED = { ratePerSec: 100_000, burst: 1000 } as const;

export function benchConfigYaml(baseUrl: string, rate: { ratePerSec: number; burst: number } = UNLIMITED): string {
  return `${[
    `baseUrl: ${baseUrl}`,
    'catalogue:\n  dir: ./catalogue',
    'state:\n  path: ./state/state.db',
    `rateLimit:\n  ratePerSec: ${rate.ratePerSec}\n  burst: ${rate.burst}\n  concurrency: 16`,
    'lists:\n  perPage: 100',
    'log:\n  level: warn',
  ].join('\n')}\n`;
}

export function benchCliEnv(key: string, stateUrl: string, own: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    OFFERSYNC_API_KEY: key,
    ...own,
    ...(stateUrl ? { OFFERSYNC_STATE_URL: stateUrl } : {}),
  };
}
