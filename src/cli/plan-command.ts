import type { Command } from './command.ts';
import { flagCommand } from './flag-command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, SELLER_HELP, SELLER_OPTION } from './common-flags.ts';
import { runReconcile } from './run-reconcile.ts';
import { TARGET_HELP, TARGET_OPTIONS, targetFlags } from './target-flags.ts';

const HELP = `Usage: offersync plan [flags]

Reads the catalogue and the marketplace and prints what reconcile would do, grouped by kind: counts first,
then each action with its external_id, the fields old -> new, and the reason. Sends no write.
Exit 0: no changes. 3: changes pending. 1: a guard (mass archive, prices) would stop the run, or the plan
could not see everything (a list read in part, a file quarantined, an offer invalid or held back).
2: usage or config error.

  --json     the plan as JSON
  --out <file>           also save the plan to this file, to carry out exactly it later with
                         reconcile --plan <file> (it holds no credential)
  --allow-mass-archive   plan as if the mass-archive guard were lifted
  --allow-price-change   plan as if the price guard were lifted
${TARGET_HELP}
${SELLER_HELP}

${CONFIG_HELP}

Examples:
  offersync plan --catalogue ./catalogue
  offersync plan --only top-ups --file top-ups/gems.csv
  offersync plan --json | jq '.actions[] | select(.type == "archive")'
  offersync plan --out next.plan               # then: offersync reconcile --plan next.plan
`;

const OPTIONS = {
  ...CONFIG_OPTIONS,
  ...SELLER_OPTION,
  ...TARGET_OPTIONS,
  json: { type: 'boolean' },
  out: { type: 'string' },
  'allow-mass-archive': { type: 'boolean' },
  'allow-price-change': { type: 'boolean' },
} as const;

export const command: Command = flagCommand({
  name: 'plan',
  options: OPTIONS,
  help: HELP,
  async run({ values }, io) {
    return runReconcile(
      io,
      { flags: configFlags(values), env: io.env, cwd: io.cwd },
      {
        command: 'plan',
        dryRun: true,
        json: values.json === true,
        allowMassArchive: values['allow-mass-archive'] === true,
        allowPriceChange: values['allow-price-change'] === true,
        ...(values.seller ? { seller: values.seller } : {}),
        target: targetFlags(values),
        ...(values.out ? { out: values.out } : {}),
      },
    );
  },
});
