import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dotEnv } from '../../src/cli/dot-env.ts';
import { runCli } from '../support/cli.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function folder(env?: string): string {
  const d = mkdtempSync(join(tmpdir(), 'offersync-dotenv-'));
  dirs.push(d);
  if (env !== undefined) writeFileSync(join(d, '.env'), env);
  return d;
}

describe('.env beside the command', () => {
  it('takes the OFFERSYNC_ keys the environment does not set, and nothing else', () => {
    const d = folder('OFFERSYNC_BASEURL=https://m.example\nOFFERSYNC_API_KEY="k 1"\nNODE_OPTIONS=--inspect\n# x\n');
    expect(dotEnv(d, {})).toEqual({ OFFERSYNC_BASEURL: 'https://m.example', OFFERSYNC_API_KEY: 'k 1' });
    expect(dotEnv(d, { OFFERSYNC_API_KEY: 'from-shell' })).toEqual({ OFFERSYNC_BASEURL: 'https://m.example' });
  });

  it('is nothing when there is no .env', () => {
    expect(dotEnv(folder(), {})).toEqual({});
  });

  it('reaches the command: validate reads the catalogue .env names', async () => {
    const d = folder('OFFERSYNC_CATALOGUE_DIR=./my-shop\n');
    writeFileSync(join(d, 'unused'), '');
    const r = await runCli(['validate'], { cwd: d, env: { PATH: process.env.PATH } });
    expect(`${r.stdout}${r.stderr}`).toContain('my-shop');
  });
});
