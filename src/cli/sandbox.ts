// offersync sandbox: the marketplace emulator as a process, until SIGINT or SIGTERM.
import { RATE_LIMIT_HEADERS, type RateLimitHeaders, type WindowRateLimit } from '../sandbox/sandbox-options.ts';
import { type RunningSandbox, startSandbox, type SandboxOptions } from '../sandbox/sandbox-server.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { parseFlags } from './common-flags.ts';
import { onStopSignal } from './signals.ts';

const DEFAULT_KEY = 'sandbox-key';

const HELP = `Usage: offersync sandbox [flags]

A local emulator of the marketplace's Seller Offer Synchronization API, for trying a catalogue before
going live. Memory only unless --persist. Control routes for tests under /__sandbox/ (no key needed on
loopback; with --host beyond loopback they need an --api-key, as they dump stored credentials).

  --port <n>                 port (default 8080; 0 = a free port)
  --host <addr>              address to bind (default 127.0.0.1)
  --api-key <key>            accepted bearer key, repeatable (default OFFERSYNC_API_KEY, else '${DEFAULT_KEY}')
  --rate <n>                 token bucket per key: n requests/s (default unlimited)
  --burst <n>                the bucket's burst (default: the rate)
  --rate-headers <style>     how the limit is told: x-ratelimit (default), ietf (RateLimit-Policy), none
  --rate-window <n>/<s>      instead of --rate, the real site's limiter: n requests per fixed s-second window
                             per client address, then 429 without limit headers and the address banned
  --rate-ban <s>             with --rate-window: seconds the address is banned (default 300)
  --user-agent-rules         with --rate-window: an empty User-Agent gets 429, a library's (curl/, axios/...) 5
  --persist <file>           keep the store in this JSON file across restarts
  --error-rate <0..1>        answer 500/502/503 to this share of requests
  --lost-response-rate <0..1> do the write, then lose the answer
  --drop-rate <0..1>         close the connection without an answer
  --latency <ms>             added to every API response
  --seed <n>                 make the faults above repeatable
  --wrap                     single objects wrapped as {data: {...}}
  --epoch-timestamps         timestamps as epoch seconds
  --integers-as-strings      integers as numeric strings
  --created-201              creates answered 201 instead of 200
  --numeric-id-paths         {identifier} in a path is only a numeric id
  --game-as-object           item and top-up game echoed as {slug, name}
  --bulk-counts-only         bulk-update and bulk-remove answer counts, no per-offer results
  --bulk-routes              serve item bulk-update, item and top-up bulk-remove (not in the document)
  --bulk-key <key>           the key bulk-updates read their array from (default offers; named only in a 422)
  --bulk-limit <n>           most elements one bulk call takes (more answers 422 naming it)
  --bulk-fail-every <n>      every n-th element of an item or top-up bulk call is left undone (failed)
  --real-top-up-names        top-ups as the real server names them (title, amount, unit, image_url)
  --bulk-external-id-first   bulk elements found by external_id first, an all-digit one as the internal id
  --bulk-real-answers        bulk answers in the real server's shape (updated[] rows, archived[] rows)
  --delete-archives          serve DELETE /items/{id} and /top-ups/{id}, archiving (not in the document)
  --delete-removes           with --delete-archives: the offer is gone from lists and GET instead
  --status-archived-refused  item and top-up updates refuse status archived (only DELETE archives)
  --external-id-path-html    GET /{kind}/{external_id} answers an HTML page
  --idempotency-keys         creates honour an Idempotency-Key header
  --real-accounts            accounts answered as the real marketplace: ranks in parameters, credentials and
                             image_urls returned, no image_ids
  --accounts-duplicate-external-id  a second account create with a taken external_id is accepted
  -h, --help                 this help

Try a sale on a running sandbox (see offersync sandbox sell --help):
  offersync sandbox sell <external_id> [--quantity n]

Examples:
  offersync sandbox --port 18080 --api-key demo-key-1234
  OFFERSYNC_BASE_URL=http://127.0.0.1:18080 OFFERSYNC_API_KEY=demo-key-1234 offersync plan
`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  rate: { type: 'string' },
  burst: { type: 'string' },
  'rate-headers': { type: 'string' },
  'rate-window': { type: 'string' },
  'rate-ban': { type: 'string' },
  'user-agent-rules': { type: 'boolean' },
  persist: { type: 'string' },
  'error-rate': { type: 'string' },
  'lost-response-rate': { type: 'string' },
  'drop-rate': { type: 'string' },
  latency: { type: 'string' },
  seed: { type: 'string' },
  wrap: { type: 'boolean' },
  'epoch-timestamps': { type: 'boolean' },
  'integers-as-strings': { type: 'boolean' },
  'created-201': { type: 'boolean' },
  'numeric-id-paths': { type: 'boolean' },
  'game-as-object': { type: 'boolean' },
  'bulk-counts-only': { type: 'boolean' },
  'bulk-routes': { type: 'boolean' },
  'bulk-key': { type: 'string' },
  'bulk-limit': { type: 'string' },
  'bulk-fail-every': { type: 'string' },
  'real-top-up-names': { type: 'boolean' },
  'bulk-external-id-first': { type: 'boolean' },
  'bulk-real-answers': { type: 'boolean' },
  'delete-archives': { type: 'boolean' },
  'delete-removes': { type: 'boolean' },
  'status-archived-refused': { type: 'boolean' },
  'real-accounts': { type: 'boolean' },
  'accounts-duplicate-external-id': { type: 'boolean' },
  'external-id-path-html': { type: 'boolean' },
  'idempotency-keys': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function num(
  flag: string,
  raw: string | undefined,
  check: (n: number) => boolean,
  expected: string,
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new UsageError(`--${flag}: expected ${expected}, got '${raw}'`);
  return n;
}

const rate01 = (flag: string, raw: string | undefined) =>
  num(flag, raw, (n) => n >= 0 && n <= 1, 'a number from 0 to 1');

/** --rate-window 300/60 [--rate-ban 300] [--user-agent-rules]: the real site's limiter, or none. */
function rateWindow(
  spec: string | undefined,
  ban: string | undefined,
  userAgentRules: boolean,
): WindowRateLimit | null {
  if (spec === undefined) {
    if (ban !== undefined || userAgentRules)
      throw new UsageError('--rate-ban and --user-agent-rules need --rate-window');
    return null;
  }
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(spec);
  if (!m || Number(m[1]) < 1 || !(Number(m[2]) > 0))
    throw new UsageError(`--rate-window: expected <requests>/<seconds>, such as 300/60, got '${spec}'`);
  const banSeconds = num('rate-ban', ban, (n) => n > 0, 'seconds > 0') ?? 300;
  return {
    window: { requests: Number(m[1]), seconds: Number(m[2]), banSeconds },
    headers: 'none',
    userAgentRules,
  };
}

export function sandboxOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): { help: boolean; options: SandboxOptions } {
  const parse = () => {
    return parseFlags(argv, OPTIONS);
  };
  const { values } = parse();
  const keys = values['api-key'] ?? [env.OFFERSYNC_API_KEY || DEFAULT_KEY];
  if (keys.some((k) => k.trim() === '' || /\s/.test(k)))
    throw new UsageError('--api-key: a key may not be empty or contain spaces');
  const rate = num('rate', values.rate, (n) => n > 0, 'a number > 0');
  const burst = num('burst', values.burst, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1');
  if (burst !== undefined && rate === undefined) throw new UsageError('--burst needs --rate');
  const headers = values['rate-headers'];
  if (headers !== undefined && rate === undefined) throw new UsageError('--rate-headers needs --rate');
  if (headers !== undefined && !(RATE_LIMIT_HEADERS as readonly string[]).includes(headers))
    throw new UsageError(`--rate-headers: expected one of ${RATE_LIMIT_HEADERS.join(', ')}, got '${headers}'`);
  const window = rateWindow(values['rate-window'], values['rate-ban'], values['user-agent-rules'] === true);
  if (window && rate !== undefined) throw new UsageError('--rate-window and --rate: one limiter or the other');
  const options: SandboxOptions = {
    host: values.host ?? '127.0.0.1',
    port: num('port', values.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'a port 0..65535') ?? 8080,
    apiKeys: keys,
    rateLimit:
      window ??
      (rate === undefined
        ? null
        : {
            ratePerSec: rate,
            burst: burst ?? Math.max(1, Math.ceil(rate)),
            ...(headers !== undefined ? { headers: headers as RateLimitHeaders } : {}),
          }),
    faults: {
      errorRate: rate01('error-rate', values['error-rate']),
      lostResponseRate: rate01('lost-response-rate', values['lost-response-rate']),
      dropRate: rate01('drop-rate', values['drop-rate']),
      latencyMs: num('latency', values.latency, (n) => n >= 0, 'milliseconds >= 0'),
      seed: num('seed', values.seed, (n) => Number.isInteger(n), 'an integer'),
    },
    representation: {
      wrapSingle: values.wrap === true,
      epochTimestamps: values['epoch-timestamps'] === true,
      integersAsStrings: values['integers-as-strings'] === true,
      createStatus201: values['created-201'] === true,
      numericIdPathsOnly: values['numeric-id-paths'] === true,
      gameAsObject: values['game-as-object'] === true,
      bulkCountsOnly: values['bulk-counts-only'] === true,
      externalIdPathHtml: values['external-id-path-html'] === true,
      idempotencyKeys: values['idempotency-keys'] === true,
      deleteArchives: values['delete-archives'] === true,
      deleteRemoves: values['delete-removes'] === true,
      statusArchivedRefused: values['status-archived-refused'] === true,
      realTopUpNames: values['real-top-up-names'] === true,
      realAccounts: values['real-accounts'] === true,
      accountsDuplicateExternalId: values['accounts-duplicate-external-id'] === true,
    },
    bulk: {
      undocumented: values['bulk-routes'] === true,
      resolveExternalIdFirst: values['bulk-external-id-first'] === true,
      realAnswers: values['bulk-real-answers'] === true,
      ...(values['bulk-key'] !== undefined ? { updateKey: values['bulk-key'] } : {}),
      ...(values['bulk-limit'] !== undefined
        ? { limit: num('bulk-limit', values['bulk-limit'], (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1') }
        : {}),
      ...(values['bulk-fail-every'] !== undefined
        ? {
            failEvery: num(
              'bulk-fail-every',
              values['bulk-fail-every'],
              (n) => Number.isInteger(n) && n >= 1,
              'an integer >= 1',
            ),
          }
        : {}),
    },
  };
  if (values.persist !== undefined) options.persistFile = values.persist;
  return { help: values.help === true, options };
}

export const command: Command = {
  name: 'sandbox',
  options: OPTIONS,
  async run(argv, io) {
    if (argv[0] === 'sell') return (await import('./sandbox-sale.ts')).sell(argv.slice(1), io);
    const { help, options } = sandboxOptions(argv, io.env);
    if (help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    let sandbox: RunningSandbox;
    try {
      sandbox = await startSandbox(options);
    } catch (err) {
      io.stderr.write(`offersync sandbox: ${(err as Error).message}\n`);
      return EXIT.failed;
    }
    const keys = options.apiKeys ?? [];
    // Print a key only when it is the built-in default: a key given by the user is not echoed.
    const key = keys.length === 1 && keys[0] === DEFAULT_KEY ? DEFAULT_KEY : '<the --api-key you gave>';
    io.stdout.write(
      `Sandbox marketplace listening on ${sandbox.url}; try: curl -H 'Authorization: Bearer ${key}' ` +
        `${sandbox.url}/api/v1/accounts\n`,
    );
    await new Promise<void>((resolve) => {
      onStopSignal(() => resolve());
    });
    await sandbox.close();
    return EXIT.ok;
  },
};
