// offersync completion: the bash script run in a real bash (COMP_WORDS as bash sets them), and the zsh and fish
// scripts checked for every command and flag, which are read from each command's own --help.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mainCaptured } from '../support/captured-io.ts';

async function script(shell: string): Promise<string> {
  const run = await mainCaptured(['completion', shell]);
  expect(run.code).toBe(0);
  return run.out + run.err;
}

const dir = mkdtempSync(join(tmpdir(), 'offersync-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash completes for the words typed so far (the last one is being completed). */
function bashComplete(file: string, typed: string[]): string[] {
  const words = typed.map((w) => `'${w}'`).join(' ');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `source ${file}; COMP_WORDS=(${words}); COMP_CWORD=${typed.length - 1}; _offersync; echo "\${COMPREPLY[*]}"`,
    ],
    { encoding: 'utf8', cwd: dir },
  );
  return out.trim().split(/\s+/).filter(Boolean);
}

describe('offersync completion', () => {
  it('bash: commands, flags of each command, kinds, formats and log levels', async () => {
    const file = join(dir, 'offersync.bash');
    writeFileSync(file, await script('bash'));
    expect(bashComplete(file, ['offersync', ''])).toEqual(
      expect.arrayContaining(['reconcile', 'plan', 'daemon', 'validate', 'status', 'schema', 'completion']),
    );
    expect(bashComplete(file, ['offersync', 're'])).toEqual(['reconcile']);
    expect(bashComplete(file, ['offersync', 'reconcile', '--al'])).toEqual([
      '--allow-mass-archive',
      '--allow-price-change',
    ]);
    expect(bashComplete(file, ['offersync', 'validate', '--format', 'g'])).toEqual(['github', 'gcc']);
    expect(bashComplete(file, ['offersync', 'schema', '--kind', ''])).toEqual(['account', 'item', 'topup']);
    expect(bashComplete(file, ['offersync', 'history', '--kind', ''])).toEqual(['account', 'item', 'topup']);
    expect(bashComplete(file, ['offersync', 'history', '--'])).toEqual(expect.arrayContaining(['--kind', '--json']));
    expect(bashComplete(file, ['offersync', 'status', '--log-level', 'de'])).toEqual(['debug']);
    expect(bashComplete(file, ['offersync', 'sandbox', '--created'])).toEqual(['--created-201']);
    expect(bashComplete(file, ['offersync', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    // pull's --format is a file format, validate's a report format.
    expect(bashComplete(file, ['offersync', 'pull', '--format', ''])).toEqual([
      'csv',
      'json',
      'ndjson',
      'yaml',
      'xlsx',
      'ods',
    ]);
    expect(bashComplete(file, ['offersync', 'pull', '--with'])).toEqual(['--with-credentials']);
  });

  it('zsh and fish: every command with its summary, and its flags', async () => {
    const zsh = await script('zsh');
    expect(zsh).toMatch(/^#compdef offersync\n/);
    expect(zsh).toContain("'reconcile:make the marketplace equal to the catalogue'");
    expect(zsh).toMatch(/ {4}validate\) compadd -- .*--format/);
    expect(zsh).toContain('compdef _offersync offersync');
    const fish = await script('fish');
    expect(fish).toContain("complete -c offersync -n __fish_use_subcommand -a plan -d 'show what reconcile would do");
    expect(fish).toContain(
      "complete -c offersync -n '__fish_seen_subcommand_from validate' -l format -x -a 'text json github gcc'",
    );
    expect(fish).toContain("complete -c offersync -n '__fish_seen_subcommand_from reconcile' -l config -r -F");
    expect(fish).toContain(
      "complete -c offersync -n '__fish_seen_subcommand_from pull' -l format -x -a 'csv json ndjson yaml xlsx ods'",
    );
    expect(zsh).toContain('if [[ $words[2] == pull && $words[CURRENT-1] == --format ]]; then compadd -- csv json');
  });

  it('an unknown shell is a usage error (exit 2)', async () => {
    const run = await mainCaptured(['completion', 'powershell'], { cwd: '/' });
    expect(run.code).toBe(2);
    expect(run.out + run.err).toMatch(/expected one shell: bash, zsh, fish/);
  });
});
