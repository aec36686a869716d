// pino JSON lines on stderr, with every place a secret can hide redacted (docs/architecture.md, Secrets); for a
// person at a terminal the same lines are rendered readable (pretty.ts).
import { pino, type Logger, type LoggerOptions } from 'pino';
import { prettyDestination } from './pretty.ts';
import { scrubSecrets } from './scrubber.ts';

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

export interface CreateLoggerOptions {
  readonly level?: string;
  /** Defaults to stderr: stdout is for the human report. */
  readonly destination?: (NodeJS.WritableStream & { isTTY?: boolean }) | { write(chunk: string): void };
  /** json: JSON lines; pretty: readable lines; auto (default): pretty when the destination is a terminal. */
  readonly format?: 'auto' | 'json' | 'pretty';
}

export function createLogger(opts: CreateLoggerOptions = {}): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? process.env.OFFERSYNC_LOG_LEVEL ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    base: { name: 'offersync' },
    hooks: {
      // Last line of defence: a secret that slipped into a message or an error string.
      streamWrite: (line: string) => scrubSecrets(line),
    },
  };
  const raw = opts.destination ?? pino.destination({ fd: 2, sync: true });
  const tty = opts.destination
    ? (opts.destination as { isTTY?: boolean }).isTTY === true
    : process.stderr.isTTY === true;
  const pretty = opts.format === 'pretty' || ((opts.format ?? 'auto') === 'auto' && tty);
  const dest = pretty ? prettyDestination(raw, { color: tty }) : raw;
  return pino(options, dest as pino.DestinationStream);
}

/** A logger that writes nothing: the default for library code and tests. */
// Any other level string makes pino throw at import: every test file importing this fails to load, which the
// vitest runner reports as no test failed, so the mutant is killed in fact though counted as survived.
// Stryker disable next-line StringLiteral: killed in fact (pino throws at import)
export const silentLogger: Logger = pino({ level: 'silent' });
