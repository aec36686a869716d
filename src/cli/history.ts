// offersync history EXTERNAL_ID: what offersync did to one offer and what it saw the marketplace do, oldest first,
// from the state db only (docs/architecture.md, History).
import { existsSync } from 'node:fs';
import type { Config } from '../config/config.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { silentLogger } from '../log/logger.ts';
import { oneLine } from '../log/terminal-text.ts';
import { redactUrl } from '../state/postgres-error.ts';
import { OFFER_EVENTS_KEPT } from '../state/kysely-state-store.ts';
import { STATE_KINDS, type StateKind } from '../state/records.ts';
import { EXIT, type Command, UsageError } from './command.ts';
import { flagCommand } from './flag-command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, SELLER_HELP, SELLER_OPTION } from './common-flags.ts';
import { formatHistory, historyJson } from './format-history.ts';
import { chooseServedSellers } from './served-sellers.ts';
import { openStore } from './services.ts';

const HELP = `Usage: offersync history EXTERNAL_ID [--kind account|item|topup] [--seller <id>] [--json] [flags]

What offersync did to one offer, and what it saw the marketplace do, oldest first, from the state db only:
each write it sent (the route, the fields it changed with old and new values, the marketplace's answer), sales,
edits made on the website and patched back, archives, adoptions, and an offer gone from the marketplace.
Credentials are never shown: a change of them reads "credentials (changed)". The last ${OFFER_EVENTS_KEPT} events
of each offer are kept, however many runs the state db keeps.

  --kind <kind>          the offer's kind, when the same external_id is used by several kinds
  --json                 as JSON (field names in docs/runs.md, An offer's history)
${SELLER_HELP.replace('(default: every seller)', '(needed when there are several)')}

Exit codes: 0 the offer's events were printed; 1 the state db knows nothing of that external_id; 2 bad flags,
or the external_id is used by several kinds and --kind was not given (the message lists them).

${CONFIG_HELP}

Examples:
  offersync history lol-euw-0042
  offersync history gold-1000 --kind item --json
  offersync history acc-7 --seller eu-shop
`;

function kindOf(v: string | undefined): StateKind | undefined {
  if (v === undefined) return undefined;
  const kind = STATE_KINDS.find((k) => k === v);
  if (!kind) throw new UsageError(`--kind must be one of ${STATE_KINDS.join(', ')}, not '${v}'`);
  return kind;
}

const OPTIONS = { ...CONFIG_OPTIONS, ...SELLER_OPTION, json: { type: 'boolean' }, kind: { type: 'string' } } as const;

export const command: Command = flagCommand({
  name: 'history',
  options: OPTIONS,
  help: HELP,
  positionals: true,
  async run({ values, positionals }, io) {
    const [externalId, ...extra] = positionals;
    if (externalId === undefined || extra.length > 0)
      throw new UsageError('give one EXTERNAL_ID (offersync history --help)');
    const wanted = kindOf(values.kind);
    let config: Config;
    try {
      const sellers = await chooseServedSellers(
        loadConfig({ flags: configFlags(values), env: io.env, cwd: io.cwd }),
        values.seller,
        io.env,
      );
      if (sellers.length > 1)
        throw new ConfigError(
          `the configuration has several sellers (${sellers.map((s) => s.seller).join(', ')}): name one with --seller`,
        );
      config = sellers[0]!;
    } catch (err) {
      if (err instanceof ConfigError) {
        io.stderr.write(`offersync history: ${oneLine(err.message)}\n`);
        return EXIT.usage;
      }
      throw err;
    }
    if (!config.state.url && config.state.path !== ':memory:' && !existsSync(config.state.path)) {
      io.stderr.write(`offersync history: no state db at ${config.state.path} yet: nothing is known of any offer\n`);
      return EXIT.failed;
    }
    const store = await openStore(config, silentLogger);
    try {
      const kinds = await store.historyKinds(externalId);
      const kind = wanted ?? (kinds.length === 1 ? kinds[0] : undefined);
      if (kinds.length === 0 || (wanted !== undefined && !kinds.includes(wanted))) {
        const as = wanted ? ` as ${wanted}` : '';
        const other = wanted && kinds.length > 0 ? ` (it is known as ${kinds.join(', ')})` : '';
        const where = config.state.url ? redactUrl(config.state.url) : config.state.path;
        io.stderr.write(`offersync history: no offer '${externalId}'${as} in the state db ${where}${other}\n`);
        return EXIT.failed;
      }
      if (kind === undefined) {
        io.stderr.write(
          `offersync history: '${externalId}' is an external_id of several kinds (${kinds.join(', ')}): ` +
            `say which with --kind ${kinds.join('|')}\n`,
        );
        return EXIT.usage;
      }
      const events = await store.offerHistory(kind, externalId, OFFER_EVENTS_KEPT);
      const hit = (await store.searchOffers(externalId, 10)).find(
        (h) => h.kind === kind && h.externalId === externalId,
      );
      const heading = { kind, externalId, title: hit?.title ?? null, kept: OFFER_EVENTS_KEPT };
      io.stdout.write(
        values.json ? `${JSON.stringify(historyJson(heading, events), null, 2)}\n` : formatHistory(heading, events),
      );
      return EXIT.ok;
    } finally {
      await store.close();
    }
  },
});
