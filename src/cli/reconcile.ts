import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readSavedPlan, type SavedPlan } from '../saved-plan/saved-plan.ts';
import { type Command, UsageError } from './command.ts';
import { flagCommand } from './flag-command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, SELLER_HELP, SELLER_OPTION } from './common-flags.ts';
import { parseDuration } from './duration.ts';
import { runReconcile } from './run-reconcile.ts';
import { TARGET_HELP, TARGET_OPTIONS, targetFlags } from './target-flags.ts';

const HELP = `Usage: offersync reconcile [flags]

Makes the marketplace equal to the catalogue: creates what is new, patches what changed, archives what
offersync owns and the catalogue no longer has, uploads new gallery images. Prints a summary per kind and
every offer that failed, with its file and the marketplace's message.
Exit 0: converged. 1: some offers failed, or the run was stopped (guard, signal, marketplace unreadable).
2: usage or config error. 4: another offersync holds the state db (see --lock-timeout).

  --lock-timeout <dur>   wait this long for another run's writer lease (0, 30s, 5m; default 0: fail at once)
  --dry-run              plan only (same as offersync plan)
  --json                 the run report as JSON
  --allow-mass-archive   let a run archive more than half of the managed offers, or more than guard.maxArchive
  --allow-price-change   let a run change many prices by a factor of 3 or more, or a price to zero
  --plan <file>          carry out exactly the plan plan --out saved, once; refused (exit 1, nothing sent) when
                         the catalogue, the state or the marketplace changed the offers it covers
${TARGET_HELP}
${SELLER_HELP}

${CONFIG_HELP}

Examples:
  offersync reconcile --catalogue ./catalogue
  offersync reconcile --only accounts --match 'lol-acc-*'
  offersync plan --out next.plan && offersync reconcile --plan next.plan
  offersync reconcile --lock-timeout 5m        # wait for another run instead of exiting 4
`;

const OPTIONS = {
  ...CONFIG_OPTIONS,
  ...SELLER_OPTION,
  ...TARGET_OPTIONS,
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'allow-mass-archive': { type: 'boolean' },
  'allow-price-change': { type: 'boolean' },
  'lock-timeout': { type: 'string' },
  plan: { type: 'string' },
} as const;

export const command: Command = flagCommand({
  name: 'reconcile',
  options: OPTIONS,
  help: HELP,
  async run({ values }, io) {
    const target = targetFlags(values);
    let savedPlan: { path: string; plan: SavedPlan } | undefined;
    if (values.plan !== undefined) {
      if (target)
        throw new UsageError('--plan carries out a saved plan as it is: --only, --file and --match cannot go with it');
      if (values['allow-mass-archive'])
        throw new UsageError('--plan carries out a saved plan as it is: --allow-mass-archive goes with plan --out');
      if (values['allow-price-change'])
        throw new UsageError('--plan carries out a saved plan as it is: --allow-price-change goes with plan --out');
      if (values['dry-run']) throw new UsageError('--plan and --dry-run contradict each other');
      let text: string;
      try {
        text = readFileSync(resolve(io.cwd, values.plan), 'utf8');
      } catch (err) {
        throw new UsageError(`--plan ${values.plan}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      const plan = readSavedPlan(text);
      if ('error' in plan) throw new UsageError(`--plan ${values.plan}: ${plan.error}`);
      savedPlan = { path: values.plan, plan };
    }
    return runReconcile(
      io,
      { flags: configFlags(values), env: io.env, cwd: io.cwd },
      {
        command: 'reconcile',
        dryRun: values['dry-run'] === true,
        json: values.json === true,
        allowMassArchive: values['allow-mass-archive'] === true,
        allowPriceChange: values['allow-price-change'] === true,
        ...(values.seller ? { seller: values.seller } : {}),
        target,
        ...(savedPlan ? { savedPlan } : {}),
        lockTimeoutMs: parseDuration(values['lock-timeout'] ?? '0', '--lock-timeout'),
      },
    );
  },
});
