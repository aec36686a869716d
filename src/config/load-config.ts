// Loads the configuration: embedded defaults < config file < environment < flags, validated once with zod.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigSchema, type Config } from './config.ts';

export const DEFAULT_CONFIG_FILE = fileURLToPath(new URL('../../config/default.yaml', import.meta.url));

/** Values given on the command line; each wins over the environment and the files. */
export interface ConfigFlags {
  readonly config?: string;
  readonly baseUrl?: string;
  readonly catalogue?: string;
  readonly state?: string;
  readonly insecure?: boolean;
  readonly logLevel?: string;
}

export interface ConfigSources {
  readonly flags?: ConfigFlags;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Extra values merged last (tests, demo). */
  readonly overrides?: Readonly<Record<string, unknown>>;
}

/** A configuration a person must fix: names the key, what was expected and what was found. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Tree = Record<string, unknown>;

function isTree(v: unknown): v is Tree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const b = out[k];
    out[k] = isTree(b) && isTree(v) ? merge(b, v) : v;
  }
  return out;
}

function readYamlFile(path: string, what: string): Tree {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${what} ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isTree(doc))
    throw new ConfigError(
      `${what} ${path} must be a YAML mapping of keys, found ${Array.isArray(doc) ? 'a list' : typeof doc}`,
    );
  return doc;
}

function readApiKey(env: NodeJS.ProcessEnv, cwd: string): string {
  const direct = env.OFFERSYNC_API_KEY?.trim();
  if (direct) return direct;
  const file = env.OFFERSYNC_API_KEY_FILE?.trim();
  if (!file) return '';
  try {
    return readFileSync(resolve(cwd, file), 'utf8').trim();
  } catch (err) {
    throw new ConfigError(
      `OFFERSYNC_API_KEY_FILE names ${file}, which cannot be read ` +
        `(${(err as NodeJS.ErrnoException).code ?? 'error'}): point it at a file holding the API key`,
    );
  }
}

function describeIssue(issue: z.core.$ZodIssue, input: Tree): string {
  const key = issue.path.join('.');
  let received: unknown = input;
  for (const p of issue.path) received = isTree(received) ? received[String(p)] : undefined;
  if (issue.code === 'unrecognized_keys') {
    const where = key ? `${key}.` : '';
    return `unknown key ${issue.keys.map((k) => `'${where}${k}'`).join(', ')} (see config/default.yaml for every key)`;
  }
  const shown = received === undefined ? 'nothing' : JSON.stringify(received);
  return `'${key}': ${issue.message} (found ${shown})`;
}

export function loadConfig(src: ConfigSources = {}): Config {
  const env = src.env ?? process.env;
  const cwd = src.cwd ?? process.cwd();
  const flags = src.flags ?? {};
  const sources = [DEFAULT_CONFIG_FILE];

  let tree = readYamlFile(DEFAULT_CONFIG_FILE, 'default config');
  const userFile = flags.config ?? env.OFFERSYNC_CONFIG;
  let baseDir = cwd;
  if (userFile) {
    const path = resolve(cwd, userFile);
    const user = readYamlFile(path, 'config file');
    for (const secretKey of ['apiKey', 'api_key', 'key', 'token']) {
      if (secretKey in user) {
        throw new ConfigError(
          `config file ${path} has '${secretKey}': the API key is never read from a config file; set ` +
            `OFFERSYNC_API_KEY or OFFERSYNC_API_KEY_FILE instead`,
        );
      }
    }
    tree = merge(tree, user);
    baseDir = dirname(path);
    sources.push(path);
  }

  const fromEnv: Tree = {};
  if (env.OFFERSYNC_BASE_URL) fromEnv.baseUrl = env.OFFERSYNC_BASE_URL;
  if (env.OFFERSYNC_CATALOGUE_DIR) fromEnv.catalogue = { dir: resolve(cwd, env.OFFERSYNC_CATALOGUE_DIR) };
  if (env.OFFERSYNC_STATE_DB) fromEnv.state = { path: resolve(cwd, env.OFFERSYNC_STATE_DB) };
  if (env.OFFERSYNC_LOG_LEVEL) fromEnv.log = { level: env.OFFERSYNC_LOG_LEVEL };
  if (Object.keys(fromEnv).length > 0) sources.push('environment');
  tree = merge(tree, fromEnv);

  const fromFlags: Tree = {
    baseUrl: flags.baseUrl,
    insecure: flags.insecure ? true : undefined,
    catalogue: flags.catalogue ? { dir: resolve(cwd, flags.catalogue) } : undefined,
    state: flags.state ? { path: resolve(cwd, flags.state) } : undefined,
    log: flags.logLevel ? { level: flags.logLevel } : undefined,
  };
  tree = merge(tree, fromFlags);
  if (src.overrides) tree = merge(tree, src.overrides);

  const parsed = ConfigSchema.safeParse(tree);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${describeIssue(i, tree)}`);
    throw new ConfigError(`invalid configuration (${sources.join(' < ')}):\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  const absolute = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const config: Config = {
    ...cfg,
    catalogue: { ...cfg.catalogue, dir: absolute(cfg.catalogue.dir) },
    state: { ...cfg.state, path: cfg.state.path === ':memory:' ? ':memory:' : absolute(cfg.state.path) },
    sources,
    apiKey: readApiKey(env, cwd),
  };
  return deepFreeze(config);
}

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
