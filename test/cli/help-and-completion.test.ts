// Each command's --help, its parser and the shell completion read one flag table: completion offers only flags
// the command takes, and --help lists each of them and ends with examples.
import { COMMANDS } from '../../src/cli/main.ts';
import { describe, expect, it } from 'vitest';
import type { Command } from '../../src/cli/command.ts';
import { bashScript, commandSpecs } from '../../src/cli/completion.ts';
import { capturedIo } from '../support/captured-io.ts';

const NAMES = [
  'reconcile',
  'plan',
  'daemon',
  'pull',
  'validate',
  'status',
  'schema',
  'sandbox',
  'demo',
  'healthcheck',
  'history',
  'sellers',
  'sales',
] as const;

async function load(name: string): Promise<Command> {
  return (await COMMANDS[name]!.load()).command;
}

async function helpOf(command: Command): Promise<string> {
  const io = capturedIo();
  await command.run(['--help'], io);
  return io.out() + io.err();
}

/** The flags a help text lists, each at the start of its line (not those it names in passing). */
function listed(help: string): Set<string> {
  const flags = help
    .split('\nExamples:')[0]!
    .split('\n')
    .flatMap((l) => [...l.matchAll(/^\s+(?:-[a-zA-Z], )?--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
  return new Set(flags);
}

describe('help and completion', () => {
  it.each(NAMES)('%s: --help lists every flag it takes and no other, and ends with examples', async (name) => {
    const command = await load(name);
    const help = await helpOf(command);
    const taken = new Set(Object.keys(command.options).filter((f) => f !== 'help'));
    const shown = listed(help);
    shown.delete('help');
    expect([...shown].sort()).toEqual([...taken].sort());
    expect(help.trimEnd()).toMatch(/\nExamples:\n(\s+.*offersync .*\n?)+$/);
  });

  it('completion offers a command only the flags it takes: plan has no --plan, reconcile no --out', async () => {
    const table = Object.fromEntries(
      NAMES.map((n) => [n, { summary: n, load: async () => ({ command: await load(n) }) }]),
    );
    const specs = await commandSpecs(table);
    const flagsOf = (name: string) => specs.find((s) => s.name === name)!.flags.map((f) => f.name);
    expect(flagsOf('plan')).toContain('out');
    expect(flagsOf('plan')).not.toContain('plan');
    expect(flagsOf('reconcile')).toContain('plan');
    expect(flagsOf('reconcile')).not.toContain('out');
    for (const s of specs) {
      if (s.name === 'completion') continue;
      const command = await load(s.name);
      expect(s.flags.map((f) => f.name).sort()).toEqual(Object.keys(command.options).sort());
    }
    expect(bashScript(specs)).toMatch(/plan\) flags="[^"]*--out[^"]*"/);
  });
});
