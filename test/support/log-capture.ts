// A real logger (pino, with its redaction) whose JSON lines are kept in memory, for tests that read what a run
// tells an operator.
import { createLogger, type Logger } from '../../src/log/logger.ts';

export interface CapturedLog {
  readonly logger: Logger;
  /** Every line written, parsed. */
  readonly lines: Record<string, unknown>[];
  /** The lines whose message is `msg`. */
  find(msg: string): Record<string, unknown>[];
}

export function captureLog(level: 'debug' | 'info' | 'warn' = 'debug'): CapturedLog {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level,
    format: 'json',
    destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  return { logger, lines, find: (msg) => lines.filter((l) => l.msg === msg) };
}
