// Every configuration key from the environment, by one naming rule: OFFERSYNC_ and the key's path in capitals,
// `_` between levels (rateLimit.ratePerSec -> OFFERSYNC_RATELIMIT_RATEPERSEC). NAME_FILE instead of NAME reads
// the value from a file (Docker and Kubernetes secrets). A value is read as what its key accepts: text, a
// number, true/false, empty or null for a key that may be null, JSON for a list or a map.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { forbiddenKeyMessage, forbiddenKeyPaths, setOwn } from '../input/forbidden-keys.ts';
import { ConfigSchema, PARSE_ONCE } from './config.ts';

/** Variables that are not configuration keys, and the older short names kept for existing setups. */
export const OTHER_ENV = ['OFFERSYNC_API_KEY', 'OFFERSYNC_API_KEY_FILE', 'OFFERSYNC_CONFIG'] as const;
export const ENV_ALIASES: Readonly<Record<string, string>> = {
  OFFERSYNC_BASE_URL: 'baseUrl',
  OFFERSYNC_STATE_DB: 'state.path',
};
/** Keys holding a path: a relative path in the environment is relative to the working directory. */
const PATH_KEYS = new Set(['catalogue.dir', 'state.path']);

type Tree = Record<string, unknown>;
type Leaf = { readonly key: string; readonly schema: z.ZodType };

/** The variable name of a configuration key: daemon.healthPort -> OFFERSYNC_DAEMON_HEALTHPORT. */
export function envName(key: string): string {
  return `OFFERSYNC_${key.split('.').join('_').toUpperCase()}`;
}

/** Every configuration key (a leaf of the schema), with its schema. */
export function configKeys(schema: z.ZodType = ConfigSchema): Leaf[] {
  const out: Leaf[] = [];
  const walk = (s: z.ZodType, path: string[]) => {
    if (s.def.type === 'object') {
      for (const [k, v] of Object.entries((s as z.ZodObject).shape)) walk(v as z.ZodType, [...path, k]);
    } else {
      out.push({ key: path.join('.'), schema: s });
    }
  };
  walk(schema, []);
  return out;
}

/** Thrown for a variable a person must fix; load-config turns it into a ConfigError. */
export class EnvConfigError extends Error {
  override readonly name = 'EnvConfigError';
}

/**
 * The configuration the environment sets, as a tree to merge over the files, and the variables it used.
 * An OFFERSYNC_ variable that names no key is an error (with the nearest name): a typo must not pass silently.
 */
export function configFromEnv(env: NodeJS.ProcessEnv, cwd: string): { tree: Tree; used: string[] } {
  const keys = configKeys();
  const byName = new Map<string, Leaf>(keys.map((k) => [envName(k.key), k]));
  for (const [alias, key] of Object.entries(ENV_ALIASES)) {
    const leaf = keys.find((k) => k.key === key);
    if (leaf) byName.set(alias, leaf);
  }
  const tree: Tree = {};
  const used: string[] = [];
  const names = Object.keys(env)
    .filter((n) => n.startsWith('OFFERSYNC_') && env[n] !== undefined)
    .sort((a, b) => (ENV_ALIASES[a] ? -1 : 0) - (ENV_ALIASES[b] ? -1 : 0)); // the rule's name wins over an alias
  for (const name of names) {
    if ((OTHER_ENV as readonly string[]).includes(name)) continue;
    const fromFile = name.endsWith('_FILE') && !byName.has(name);
    const leaf = byName.get(fromFile ? name.slice(0, -'_FILE'.length) : name);
    if (!leaf) throw new EnvConfigError(unknownVariable(name, [...byName.keys()]));
    let raw = env[name] ?? '';
    if (raw === '' && !fromFile && leaf.schema.def.type !== 'nullable') continue; // set but empty: not set
    if (fromFile) raw = readValueFile(name, raw, cwd);
    let value = parseValue(raw, leaf.schema);
    const forbidden = forbiddenKeyPaths(value)[0];
    if (forbidden) {
      const key = String(forbidden[forbidden.length - 1]);
      throw new EnvConfigError(`${name}: ${forbiddenKeyMessage(key, 'key')} (at ${forbidden.join('.')})`);
    }
    if (PATH_KEYS.has(leaf.key) && typeof value === 'string') value = resolve(cwd, value);
    setPath(tree, leaf.key, value);
    used.push(name);
  }
  return { tree, used };
}

/** The first reading of the text that the key accepts; else the text itself, so the error names the key. */
function parseValue(raw: string, schema: z.ZodType): unknown {
  const t = raw.trim();
  const candidates: unknown[] = [raw];
  if (t !== '' && !Number.isNaN(Number(t))) candidates.push(Number(t));
  if (/^(true|yes|on|1)$/i.test(t)) candidates.push(true);
  if (/^(false|no|off|0)$/i.test(t)) candidates.push(false);
  if (t === '' || t === 'null') candidates.push(null);
  if (/^[[{]/.test(t)) {
    try {
      candidates.push(JSON.parse(t));
    } catch {
      // not JSON: the schema's error says what was expected
    }
  }
  const i = candidates.findIndex((c) => schema.safeParse(c, PARSE_ONCE).success);
  return i >= 0 ? candidates[i] : raw;
}

function readValueFile(name: string, file: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, file), 'utf8').trim();
  } catch (err) {
    throw new EnvConfigError(
      `${name} names ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): ` +
        'point it at the file holding the value',
    );
  }
}

function setPath(tree: Tree, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = tree;
  for (const p of parts.slice(0, -1)) {
    if (!Object.hasOwn(node, p)) setOwn(node, p, {});
    node = node[p] as Tree;
  }
  setOwn(node, parts.at(-1)!, value);
}

function unknownVariable(name: string, known: string[]): string {
  const nearest = known
    .map((k) => ({ k, d: distance(name, k) }))
    .sort((a, b) => a.d - b.d)
    .find((c) => c.d <= Math.max(3, name.length / 5));
  return (
    `environment variable ${name} names no configuration key${nearest ? ` (did you mean ${nearest.k}?)` : ''}. ` +
    'The rule: OFFERSYNC_ and the key path in capitals, e.g. rateLimit.ratePerSec is OFFERSYNC_RATELIMIT_RATEPERSEC; ' +
    'every key is in config/default.yaml'
  );
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
