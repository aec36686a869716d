// The logger of a command: level and format from the configuration (log.level, log.format), on the command's
// stderr, readable on a terminal unless log.format is json.
import type { Config } from '../config/config.ts';
import { createLogger, type Logger } from '../log/logger.ts';
import type { CliIO } from './command.ts';

export function cliLogger(config: Config, io: CliIO): Logger {
  return createLogger({ level: config.log.level, format: config.log.format, destination: io.stderr });
}
