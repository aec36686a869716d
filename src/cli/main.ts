// Entry point: `offersync <command> [flags]`. Each command lives in its own file and is loaded on demand,
// so `offersync sandbox` does not pay for sqlite and `validate` never loads the HTTP client.
import { readFileSync } from 'node:fs';
import { scrubSecrets } from '../log/scrubber.ts';
import { oneLine, terminalStream } from '../log/terminal-text.ts';
import { StateDbError } from '../state/state-db-fault.ts';
import { EXIT, UsageError, type CliIO, type Command } from './command.ts';
import { nearestName } from './common-flags.ts';
import { COMPLETION_SUMMARY, runCompletion } from './completion.ts';

/** Every command but completion, loaded when it runs; tests load them here too. */
export const COMMANDS: Readonly<Record<string, { summary: string; load: () => Promise<{ command: Command }> }>> = {
  reconcile: { summary: 'make the marketplace equal to the catalogue', load: () => import('./reconcile.ts') },
  plan: { summary: 'show what reconcile would do, change nothing', load: () => import('./plan-command.ts') },
  daemon: {
    summary: 'reconcile at start, on every catalogue change and on a schedule',
    load: () => import('./daemon-command.ts'),
  },
  pull: {
    summary: "write the marketplace's offers as a catalogue (day one for a seller who already sells)",
    load: () => import('./pull.ts'),
  },
  validate: { summary: 'check the catalogue, no network', load: () => import('./validate.ts') },
  status: { summary: 'what the state db knows: offers, runs, journal, sold', load: () => import('./status.ts') },
  history: {
    summary: "one offer's story: what offersync sent, what the marketplace answered and did",
    load: () => import('./history.ts'),
  },
  sellers: {
    summary: 'add, remove and list the sellers daemon replicas serve (PostgreSQL state)',
    load: () => import('./sellers.ts'),
  },
  sales: {
    summary: 'the sales seen since a time, as JSON lines for an inventory script',
    load: () => import('./sales.ts'),
  },
  schema: { summary: 'print or write the JSON Schema of catalogue files', load: () => import('./schema-command.ts') },
  sandbox: { summary: 'run a local emulator of the marketplace API', load: () => import('./sandbox.ts') },
  demo: { summary: 'sandbox + example catalogue + reconcile, in one process', load: () => import('./demo.ts') },
  healthcheck: {
    summary: "exit 0 when this machine's daemon answers /healthz (for a container HEALTHCHECK)",
    load: () => import('./healthcheck.ts'),
  },
};

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const all = [...Object.entries(COMMANDS), ['completion', { summary: COMPLETION_SUMMARY }] as const];
  const width = Math.max(...all.map(([c]) => c.length));
  const lines = all.map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return (
    `offersync ${version()}: keeps a seller's marketplace offers equal to the catalogue on disk.\n\nUsage: ` +
    `offersync <command> [flags]\n\nCommands:\n${lines.join('\n')}\n\nRun 'offersync <command> --help' for the ` +
    `flags of one command.\n`
  );
}

/**
 * stdout and stderr as every command writes to them: each string scrubbed of secrets and its control characters
 * escaped, so that no data (a file name, an external_id, a server's message) reaches the terminal raw.
 */
function humanIO(io: CliIO): CliIO {
  return { ...io, stdout: terminalStream(io.stdout, scrubSecrets), stderr: terminalStream(io.stderr, scrubSecrets) };
}

export async function main(argv: readonly string[], given: CliIO): Promise<number> {
  const io = humanIO(given);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`offersync ${version()}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (!entry && name !== 'completion') {
    // One line with the nearest name: the whole help would push the mistake off the screen.
    const near = nearestName(name, [...Object.keys(COMMANDS), 'completion']);
    io.stderr.write(
      `offersync: unknown command '${oneLine(name)}'${near ? `; did you mean '${near}'?` : ''} ` +
        `('offersync --help' lists the commands)\n`,
    );
    return EXIT.usage;
  }
  try {
    if (!entry) return await runCompletion(rest, io, COMMANDS);
    const { command } = await entry.load();
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`offersync ${name}: ${oneLine(err.message)}\n`);
      return EXIT.usage;
    }
    // A state db that cannot be opened is said in a paragraph with what to do, whatever the command; like every
    // setup problem a person fixes, it exits 2.
    if (err instanceof StateDbError) {
      io.stderr.write(`offersync ${name}: ${oneLine(err.message)}\n`);
      return EXIT.usage;
    }
    throw err;
  }
}
