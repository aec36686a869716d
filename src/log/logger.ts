// pino JSON lines on stderr, with every place a secret can hide redacted (docs/architecture.md, Secrets).
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Paths pino blanks out wherever they appear in a log object. */
export const REDACT_PATHS: readonly string[] = [
  'apiKey',
  'api_key',
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.apiKey',
  '*.authorization',
  '*.headers.authorization',
  'credentials',
  '*.credentials',
  '*.*.credentials',
  'password',
  '*.password',
  '*.*.password',
  'email_password',
  '*.email_password',
  '*.*.email_password',
  'login',
  '*.login',
  'email_login',
  '*.email_login',
  'body.credentials',
  'err.body.credentials',
];

const secrets = new Set<string>();

/** Registers a secret value (the API key) so that no log line ever carries it, wherever it hides. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

/** Replaces every registered secret in a string. Used by the logger and by error messages. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[REDACTED]');
  return out;
}

export interface CreateLoggerOptions {
  readonly level?: string;
  /** Defaults to stderr: stdout is for the human report. */
  readonly destination?: NodeJS.WritableStream | { write(chunk: string): void };
}

export function createLogger(opts: CreateLoggerOptions = {}): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? process.env.OFFERSYNC_LOG_LEVEL ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    base: { name: 'offersync' },
    hooks: {
      // Last line of defence: a secret that slipped into a message or an error string.
      streamWrite: (line: string) => (secrets.size > 0 ? scrubSecrets(line) : line),
    },
  };
  const dest = opts.destination ?? pino.destination({ fd: 2, sync: true });
  return pino(options, dest as pino.DestinationStream);
}

/** A logger that writes nothing: the default for library code and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
