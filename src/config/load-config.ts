// Loads the configuration: embedded defaults < config file < environment (env-config.ts) < flags, validated
// once with zod.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, LineCounter, parse as parseYaml, parseDocument } from 'yaml';
import type { z } from 'zod';
import { forbiddenKeyMessage, forbiddenKeyPaths, setOwn, type KeyPath } from '../input/forbidden-keys.ts';
import {
  ConfigSchema,
  PARSE_ONCE,
  SELLER_OVERRIDES,
  type Config,
  type SellerGroup,
  type SellerSpecInput,
} from './config.ts';
import { configFromEnv, EnvConfigError } from './env-config.ts';

export const DEFAULT_CONFIG_FILE = fileURLToPath(new URL('../../config/default.yaml', import.meta.url));

/** Values given on the command line; each wins over the environment and the files. */
export interface ConfigFlags {
  readonly config?: string;
  readonly baseUrl?: string;
  readonly catalogue?: string;
  readonly state?: string;
  readonly insecure?: boolean;
  readonly logLevel?: string;
  readonly logFormat?: string;
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
    const b = Object.hasOwn(out, k) ? out[k] : undefined;
    setOwn(out, k, isTree(b) && isTree(v) ? merge(b, v) : v);
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
  const forbidden = forbiddenKeyPaths(doc)[0];
  if (forbidden) {
    const key = String(forbidden[forbidden.length - 1]);
    const at = yamlKeyPosition(text, forbidden);
    throw new ConfigError(
      `${what} ${path}${at ? `:${at.line}:${at.column}` : ''}: ${forbiddenKeyMessage(key, 'config key')} ` +
        `(at ${forbidden.join('.')})`,
    );
  }
  if (doc === null || doc === undefined) return {};
  if (!isTree(doc))
    throw new ConfigError(
      `${what} ${path} must be a YAML mapping of keys, found ${Array.isArray(doc) ? 'a list' : typeof doc}`,
    );
  return doc;
}

/** Line and column of the key at the end of `path` in a YAML text, for a message; undefined when not found. */
function yamlKeyPosition(text: string, path: KeyPath): { line: number; column: number } | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  const parent = path.length > 1 ? document.getIn(path.slice(0, -1), true) : document.contents;
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === path[path.length - 1]);
  const offset = (pair?.key as { range?: [number, number, number] } | null)?.range?.[0];
  if (offset === undefined) return undefined;
  const at = lineCounter.linePos(offset);
  return { line: at.line, column: at.col };
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

function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
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
  const shown =
    received === undefined ? 'nothing' : key === 'state.url' ? 'a value (not shown)' : JSON.stringify(received);
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
    const userState = user.state;
    if (isTree(userState) && typeof userState.url === 'string' && urlHasPassword(userState.url)) {
      throw new ConfigError(
        `config file ${path} has a password in 'state.url': keep it out of config files; put the URL in ` +
          'OFFERSYNC_STATE_URL or a file named by OFFERSYNC_STATE_URL_FILE, or the password in PGPASSWORD',
      );
    }
    tree = merge(tree, user);
    baseDir = dirname(path);
    sources.push(path);
  }

  let fromEnv: Tree;
  try {
    fromEnv = configFromEnv(env, cwd).tree;
  } catch (err) {
    if (err instanceof EnvConfigError) throw new ConfigError(err.message);
    throw err;
  }
  if (Object.keys(fromEnv).length > 0) sources.push('environment');
  tree = merge(tree, fromEnv);

  const fromFlags: Tree = {
    baseUrl: flags.baseUrl,
    insecure: flags.insecure ? true : undefined,
    catalogue: flags.catalogue ? { dir: resolve(cwd, flags.catalogue) } : undefined,
    state: flags.state ? { path: resolve(cwd, flags.state) } : undefined,
    log: flags.logLevel || flags.logFormat ? { level: flags.logLevel, format: flags.logFormat } : undefined,
  };
  tree = merge(tree, fromFlags);
  if (src.overrides) tree = merge(tree, src.overrides);

  const parsed = ConfigSchema.safeParse(tree, PARSE_ONCE);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${describeIssue(i, tree)}`);
    throw new ConfigError(`invalid configuration (${sources.join(' < ')}):\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  const absolute = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const statePath = cfg.state.path === ':memory:' ? ':memory:' : absolute(cfg.state.path);
  const sellerConfigs = cfg.sellers.map((spec, i): Config => {
    const own: Tree = {};
    for (const k of SELLER_OVERRIDES) if (spec[k] !== undefined) own[k] = spec[k];
    const group = spec.group === undefined ? undefined : sellerGroup(cfg.sellers, spec.group, statePath, cfg.state.url);
    return checkSeller(tree, spec.id, `sellers[${i}]`, {
      ...(group ? { group } : {}),
      catalogue: absolute(spec.catalogue),
      apiKey: readSellerApiKey(spec, env, baseDir),
      statePassword: env.PGPASSWORD ?? '',
      overrides: own,
      statePath,
      sources,
      baseDir,
    });
  });
  const config: Config = {
    ...cfg,
    catalogue: { ...cfg.catalogue, dir: absolute(cfg.catalogue.dir) },
    state: { ...cfg.state, path: statePath },
    sources,
    apiKey: sellerConfigs.length > 0 ? '' : readApiKey(env, cwd),
    statePassword: env.PGPASSWORD ?? '',
    seller: 'default',
    sellerConfigs,
    baseDir,
  };
  return deepFreeze(config);
}

/** A seller's own parts: its catalogue (absolute), key, own configuration keys, and the shared state path. */
interface SellerParts {
  readonly catalogue: string;
  readonly apiKey: string;
  readonly statePassword: string;
  readonly overrides: Readonly<Record<string, unknown>>;
  readonly statePath: string;
  readonly sources: readonly string[];
  readonly baseDir: string;
  readonly group?: SellerGroup;
}

/** A seller is the shared configuration with its own catalogue, key and overrides, checked as a whole. */
function checkSeller(tree: Tree, id: string, where: string, parts: SellerParts): Config {
  const own: Tree = { ...parts.overrides, catalogue: { dir: parts.catalogue }, sellers: [] };
  const sellerTree = merge(tree, own);
  const one = ConfigSchema.safeParse(sellerTree, PARSE_ONCE);
  if (!one.success) {
    const lines = one.error.issues.map((issue) => `  - ${describeIssue(issue, sellerTree)}`);
    throw new ConfigError(`invalid configuration of seller '${id}' (${where}):\n${lines.join('\n')}`);
  }
  return {
    ...one.data,
    catalogue: { ...one.data.catalogue, dir: parts.catalogue },
    // Its own state file (sqlite), or its own folder for the files beside the state (PostgreSQL).
    state: {
      ...one.data.state,
      path: parts.statePath === ':memory:' ? ':memory:' : sellerStatePath(parts.statePath, id),
    },
    sources: parts.sources,
    apiKey: parts.apiKey,
    statePassword: parts.statePassword,
    seller: id,
    sellerConfigs: [],
    baseDir: parts.baseDir,
    ...(parts.group ? { group: parts.group } : {}),
  };
}

/** The group `name` of a sellers: list: its sellers, their state files, and where its fingerprint key is. */
function sellerGroup(
  sellers: readonly { readonly id: string; readonly group?: string | undefined }[],
  name: string,
  statePath: string,
  url: string,
): SellerGroup {
  const memory = statePath === ':memory:';
  return {
    name,
    sellers: sellers
      .filter((s) => s.group === name)
      .map((s) => ({ id: s.id, statePath: memory ? ':memory:' : sellerStatePath(statePath, s.id) })),
    keyPath: url !== '' || memory ? null : groupKeyPath(statePath, name),
  };
}

/** A group's fingerprint key (sqlite): groups/<name>.hmac-key beside the shared state.path. */
export function groupKeyPath(statePath: string, group: string): string {
  return join(dirname(statePath), 'groups', `${group}.hmac-key`);
}

/** A seller kept in the state db (`offersync sellers add`), as the configuration it runs with. */
export interface StoredSeller {
  readonly seller: string;
  /** Absolute paths. */
  readonly catalogue: string;
  readonly apiKeyFile: string | null;
  readonly apiKeyEnv: string | null;
  readonly overrides: Readonly<Record<string, unknown>>;
}

/**
 * The configuration a stored seller runs with: `base` (the loaded configuration, not one of its sellers) with the
 * seller's catalogue, key and own keys; its key read now from its file or variable (empty when missing: the seller
 * then fails to start, naming what to fix, while the others run).
 */
export function storedSellerConfig(base: Config, stored: StoredSeller, env: NodeJS.ProcessEnv): Config {
  const { sources: _s, apiKey: _k, statePassword: _p, seller: _id, sellerConfigs: _c, baseDir: _b, ...plain } = base;
  const own: Tree = {};
  for (const k of SELLER_OVERRIDES) if (stored.overrides[k] !== undefined) own[k] = stored.overrides[k];
  const spec = {
    id: stored.seller,
    catalogue: stored.catalogue,
    ...(stored.apiKeyFile ? { apiKeyFile: stored.apiKeyFile } : {}),
    ...(stored.apiKeyEnv ? { apiKeyEnv: stored.apiKeyEnv } : {}),
  };
  return deepFreeze(
    checkSeller(plain as unknown as Tree, stored.seller, 'the state db', {
      catalogue: stored.catalogue,
      apiKey: readSellerApiKey(spec, env, base.baseDir),
      statePassword: base.statePassword,
      overrides: own,
      statePath: base.state.path,
      sources: base.sources,
      baseDir: base.baseDir,
    }),
  );
}

/** The sellers: list of a configuration as the state db keeps it: paths absolute, overrides apart. */
export function storedSellersOf(config: Config): StoredSeller[] {
  return config.sellers.map((spec) => {
    const overrides: Record<string, unknown> = {};
    for (const k of SELLER_OVERRIDES) if (spec[k] !== undefined) overrides[k] = spec[k];
    return {
      seller: spec.id,
      catalogue: isAbsolute(spec.catalogue) ? spec.catalogue : resolve(config.baseDir, spec.catalogue),
      apiKeyFile: spec.apiKeyFile ? resolve(config.baseDir, spec.apiKeyFile) : null,
      apiKeyEnv: spec.apiKeyEnv ?? null,
      overrides,
    };
  });
}

/** A seller's state db: sellers/<id>/state.db beside the shared state.path. */
export function sellerStatePath(statePath: string, seller: string): string {
  return join(dirname(statePath), 'sellers', seller, 'state.db');
}

/**
 * A seller's key from its apiKeyFile or apiKeyEnv. A missing one is an empty key: that seller fails when it
 * starts (naming what to fix) while the others run.
 */
function readSellerApiKey(
  spec: Pick<SellerSpecInput, 'apiKeyFile' | 'apiKeyEnv'>,
  env: NodeJS.ProcessEnv,
  baseDir: string,
): string {
  if (spec.apiKeyEnv) return env[spec.apiKeyEnv]?.trim() ?? '';
  if (!spec.apiKeyFile) return '';
  try {
    return readFileSync(resolve(baseDir, spec.apiKeyFile), 'utf8').trim();
  } catch {
    return '';
  }
}

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
