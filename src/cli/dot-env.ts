// A `.env` file in the folder offersync runs in, as compose reads it: the seller keeps the base URL, the key and
// the catalogue there, git-ignored, for the CLI and the container alike. Only OFFERSYNC_ keys are taken, and a
// variable already set in the environment wins, so a .env never changes what a supervisor or a shell set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/** The OFFERSYNC_ variables of `dir/.env` that `env` does not set yet; none when there is no such file. */
export function dotEnv(dir: string, env: NodeJS.ProcessEnv): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(join(dir, '.env'), 'utf8');
  } catch {
    return {};
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parseEnv(text)))
    if (key.startsWith('OFFERSYNC_') && env[key] === undefined && value !== undefined) out[key] = value;
  return out;
}
