// offersync demo: the sandbox marketplace in this process, the example catalogue, one reconcile, then a
// second plan to show that nothing is left to do. Writes only to a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../sandbox/sandbox-server.ts';
import { loadConfig } from '../config/load-config.ts';
import type { Config } from '../config/config.ts';
import type { Command } from './command.ts';
import { flagCommand } from './flag-command.ts';
import { runReconcile } from './run-reconcile.ts';
import { onStopSignal } from './signals.ts';

export const EXAMPLE_CATALOGUE = fileURLToPath(new URL('../../config/example-catalogue', import.meta.url));
const DEMO_KEY = 'sandbox-key';

const HELP = `Usage: offersync demo [--catalogue <dir>] [--keep]

Starts the sandbox marketplace on a free port on 127.0.0.1, reconciles the example catalogue
(config/example-catalogue, or --catalogue) into it, prints the summary, then plans again to show that
nothing is left to do. The state db lives in a temporary folder; nothing of yours is changed.

  --catalogue <dir>  reconcile this catalogue instead of the example
  --keep             keep the sandbox running afterwards (Ctrl-C stops it)
  --json             the run report as JSON

Examples:
  offersync demo
  offersync demo --catalogue ./catalogue --keep
`;

const OPTIONS = {
  catalogue: { type: 'string' },
  keep: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const command: Command = flagCommand({
  name: 'demo',
  options: OPTIONS,
  help: HELP,
  async run({ values }, io) {
    const rate = 20;
    const sandbox = await startSandbox({ apiKeys: [DEMO_KEY], rateLimit: { ratePerSec: rate, burst: rate } });
    const work = mkdtempSync(join(tmpdir(), 'offersync-demo-'));
    try {
      const base = loadConfig({
        env: {},
        cwd: io.cwd,
        flags: {
          catalogue: values.catalogue ?? EXAMPLE_CATALOGUE,
          state: join(work, 'state.db'),
          baseUrl: sandbox.url,
        },
        overrides: {
          rateLimit: { ratePerSec: rate, burst: rate },
          log: { level: io.env.OFFERSYNC_LOG_LEVEL ?? 'warn' },
        },
      });
      const config: Config = { ...base, apiKey: DEMO_KEY };
      io.stdout.write(`Sandbox marketplace on ${sandbox.url}; catalogue ${config.catalogue.dir}\n\n`);
      const code = await runReconcile(io, config, {
        command: 'demo',
        dryRun: false,
        json: values.json === true,
        allowMassArchive: false,
      });
      if (!values.json) {
        io.stdout.write('\nPlanning again against the same marketplace:\n');
        await runReconcile(io, config, { command: 'demo', dryRun: true, json: false, allowMassArchive: false });
        const c = sandbox.counters();
        io.stdout.write(
          `\nThe sandbox answered ${c.total} requests (${c.writes} writes, ${c.rateLimited} rate-limited).\n`,
        );
      }
      if (values.keep) {
        io.stdout.write(`\nSandbox still running on ${sandbox.url} (key '${DEMO_KEY}'); Ctrl-C stops it.\n`);
        await new Promise<void>((resolve) => {
          onStopSignal(() => resolve());
        });
      }
      return code;
    } finally {
      await sandbox.close();
      rmSync(work, { recursive: true, force: true });
    }
  },
});
