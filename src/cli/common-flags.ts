// Flags shared by the commands that read config, parsed with node:util parseArgs.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { type FlagTable, UsageError } from './command.ts';
import { suggest } from '../catalogue/suggest.ts';
import type { ConfigFlags } from '../config/load-config.ts';

export const CONFIG_OPTIONS = {
  config: { type: 'string' },
  'base-url': { type: 'string' },
  catalogue: { type: 'string' },
  state: { type: 'string' },
  insecure: { type: 'boolean' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** --seller, for the commands that work seller by seller (plan, reconcile, status). */
export const SELLER_OPTION = { seller: { type: 'string' } } as const satisfies ParseArgsConfig['options'];
export const SELLER_HELP =
  "  --seller <id>          only this seller of the configuration's sellers: list (default: every seller)";

export const CONFIG_HELP = `Configuration flags (each overrides the environment and the config file):
  --config <file>      config file (env OFFERSYNC_CONFIG); every key is in config/default.yaml
  --base-url <url>     marketplace base URL (env OFFERSYNC_BASE_URL)
  --catalogue <dir>    catalogue directory (env OFFERSYNC_CATALOGUE_DIR)
  --state <file>       state db (env OFFERSYNC_STATE_DB)
  --insecure           allow a non-loopback http:// base URL
  --log-level <level>  fatal, error, warn, info, debug, trace (env OFFERSYNC_LOG_LEVEL)
  --log-format <f>     auto (readable on a terminal, else JSON lines), json, pretty (env OFFERSYNC_LOG_FORMAT)
Every config key can be set from the environment: OFFERSYNC_ and its path in capitals, e.g.
rateLimit.ratePerSec is OFFERSYNC_RATELIMIT_RATEPERSEC (NAME_FILE reads the value from a file).
The API key comes from OFFERSYNC_API_KEY or OFFERSYNC_API_KEY_FILE, never from a file or a flag.`;

export function parseFlags<O extends ParseArgsConfig['options']>(
  argv: readonly string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(flagProblem(err as Error & { code?: string }, options ?? {}));
  }
}

/**
 * parseArgs's message, or for a flag it does not know the nearest one the command takes (`--catalog`: did you
 * mean --catalogue?). A seller reads one line and the flag to type, not a remark about positional arguments.
 */
function flagProblem(err: Error & { code?: string }, options: FlagTable): string {
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = /'(-{1,2}[^']+)'/.exec(err.message)?.[1] ?? '';
    const name = given.replace(/^-+/, '').replace(/=.*$/, '');
    const near = nearestName(name, Object.keys(options));
    return (
      `unknown flag '${given}'${near ? `; did you mean '--${near}'?` : ''} ` +
      '(--help lists the flags this command takes)'
    );
  }
  return err.message;
}

/** The closest name when it is close enough to be a typo, or the one that starts with what was typed. */
export function nearestName(name: string, names: readonly string[]): string | undefined {
  return suggest(name, names) ?? (name.length >= 3 ? names.find((n) => n.startsWith(name)) : undefined);
}

export function configFlags(values: Record<string, unknown>): ConfigFlags {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  return {
    config: str('config'),
    baseUrl: str('base-url'),
    catalogue: str('catalogue'),
    state: str('state'),
    insecure: values.insecure === true,
    logLevel: str('log-level'),
    logFormat: str('log-format'),
  };
}
