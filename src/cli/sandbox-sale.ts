// offersync sandbox sell: a buyer's purchase on a running sandbox, to see what offersync does with a sale without
// reading its control routes. An account is sold whole; an item or a top-up sells units. The offer is named by
// external_id (or the marketplace id) and found in the sandbox's own dump, so the kind is needed only when one
// external_id is used by two kinds.
import { request } from 'undici';
import { type CliIO, EXIT, UsageError } from './command.ts';
import { parseFlags } from './common-flags.ts';

export const SELL_HELP = `Usage: offersync sandbox sell <external_id> [flags]

On a running sandbox, buys an offer as a buyer would: an account is sold, an item or a top-up sells
--quantity units (its sold count rises and its stock falls). Then run \`offersync reconcile\`, or wait for the
daemon, to see the sale reported (run report, sold.jsonl, \`offersync sales\`, the status page).

  --url <url>          the sandbox (default OFFERSYNC_BASE_URL, else http://127.0.0.1:8080)
  --kind <kind>        accounts, items or top-ups, when the external_id is used by more than one
  --quantity <n>       units of an item or a top-up (default 1)
  -h, --help           this help

Examples:
  offersync sandbox sell LOL-001
  offersync sandbox sell GOLD-1000 --quantity 3 --url http://127.0.0.1:18080
`;

export const SELL_OPTIONS = {
  url: { type: 'string' },
  kind: { type: 'string' },
  quantity: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const KINDS = { accounts: 'accounts', items: 'items', 'top-ups': 'topUps' } as const;
type Kind = keyof typeof KINDS;

interface Found {
  readonly kind: Kind;
  readonly id: number;
  readonly status: string;
}

async function control(base: string, key: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(new URL(path, base), {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'offersync' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, body: parsed as Record<string, unknown> | undefined };
}

function findOffers(dump: Record<string, unknown>, name: string, only: Kind | undefined): Found[] {
  const found: Found[] = [];
  for (const [kind, key] of Object.entries(KINDS) as [Kind, string][]) {
    if (only && kind !== only) continue;
    const records = Array.isArray(dump[key]) ? (dump[key] as Record<string, unknown>[]) : [];
    for (const r of records) {
      if (String(r.external_id) === name || String(r.id) === name)
        found.push({ kind, id: Number(r.id), status: String(r.status) });
    }
  }
  return found;
}

export async function sell(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(argv, SELL_OPTIONS, true);
  if (values.help) {
    io.stdout.write(SELL_HELP);
    return EXIT.ok;
  }
  const [name, ...extra] = positionals;
  if (name === undefined || extra.length > 0)
    throw new UsageError(
      'offersync sandbox sell: name one offer by its external_id, e.g. offersync sandbox sell LOL-001',
    );
  const kind = values.kind;
  if (kind !== undefined && !Object.hasOwn(KINDS, kind))
    throw new UsageError(`--kind: expected accounts, items or top-ups, got '${kind}'`);
  const quantity = values.quantity === undefined ? 1 : Number(values.quantity);
  if (!Number.isInteger(quantity) || quantity < 1)
    throw new UsageError(`--quantity: expected a whole number of units >= 1, got '${values.quantity}'`);
  const base = values.url ?? io.env.OFFERSYNC_BASE_URL ?? io.env.OFFERSYNC_BASEURL ?? 'http://127.0.0.1:8080';
  const key = io.env.OFFERSYNC_API_KEY || 'sandbox-key';
  let dump: Awaited<ReturnType<typeof control>>;
  try {
    dump = await control(base, key, 'GET', '/__sandbox/dump');
  } catch (err) {
    io.stderr.write(`offersync sandbox sell: no sandbox answers at ${base} (${(err as Error).message}): start one with
\`offersync sandbox\`, or say where it is with --url.\n`);
    return EXIT.failed;
  }
  if (dump.status !== 200 || !dump.body) {
    io.stderr.write(
      `offersync sandbox sell: ${base} is not an offersync sandbox (its dump answered ${dump.status}).\n`,
    );
    return EXIT.failed;
  }
  const found = findOffers(dump.body, name, kind as Kind | undefined);
  if (found.length === 0) {
    io.stderr.write(`offersync sandbox sell: the sandbox has no offer ${name}: run \`offersync reconcile\` first.\n`);
    return EXIT.failed;
  }
  if (found.length > 1) {
    const kinds = found.map((f) => f.kind).join(', ');
    io.stderr.write(`offersync sandbox sell: ${name} is an offer of ${kinds}: say which with --kind.\n`);
    return EXIT.usage;
  }
  const offer = found[0]!;
  if (offer.status !== 'listed') {
    io.stderr.write(`offersync sandbox sell: ${offer.kind} ${name} is ${offer.status}, not listed: nothing to buy.\n`);
    return EXIT.failed;
  }
  if (offer.kind === 'accounts') {
    const res = await control(base, key, 'POST', '/__sandbox/status', {
      kind: offer.kind,
      identifier: offer.id,
      status: 'sold',
    });
    if (res.status !== 200) return refused(io, res.body);
    io.stdout.write(
      `Sold account ${name} (marketplace id ${offer.id}). Run \`offersync reconcile\` to see the sale.\n`,
    );
    return EXIT.ok;
  }
  const res = await control(base, key, 'POST', '/__sandbox/sell', { kind: offer.kind, identifier: offer.id, quantity });
  if (res.status !== 200) return refused(io, res.body);
  const what = offer.kind === 'items' ? 'item' : 'top-up';
  io.stdout.write(
    `Sold ${quantity} of ${what} ${name} (marketplace id ${offer.id}): ${String(res.body?.sold_count)} sold so far, ` +
      `stock now ${String(res.body?.stock ?? 'unlimited')}. Run \`offersync reconcile\` to see the sale.\n`,
  );
  return EXIT.ok;
}

function refused(io: CliIO, body: Record<string, unknown> | undefined): number {
  const message = typeof body?.message === 'string' ? body.message : JSON.stringify(body);
  io.stderr.write(`offersync sandbox sell: the sandbox refused: ${message}\n`);
  return EXIT.failed;
}
