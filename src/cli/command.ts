// The shape every command file exports. main.ts finds the command by name and hands it argv and stdio.
import type { ParseArgsConfig } from 'node:util';

/** A command's flags by name. */
export type FlagTable = NonNullable<ParseArgsConfig['options']>;

export interface CliIO {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export interface Command {
  readonly name: string;
  /**
   * The flags it accepts, as node:util parseArgs takes them: the one table its parser, the nearest-name hint for
   * an unknown flag and the shell completion read (its --help lists the same, a test holds them equal).
   */
  readonly options: FlagTable;
  /** Returns the exit code. Throws UsageError for bad flags (exit 2). */
  run(argv: readonly string[], io: CliIO): Promise<number>;
}

/** Bad flags or config: exit code 2, message printed as is. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Every exit code, as the README's table lists them. */
export const EXIT = {
  ok: 0,
  /**
   * Some offers failed or were blocked; the guard tripped; the marketplace was unreadable; stopped by a signal;
   * history: the state db knows nothing of that external_id.
   */
  failed: 1,
  usage: 2,
  /** plan: the marketplace differs from the catalogue. */
  changesPending: 3,
  /** Another offersync holds the state db's writer lease (after --lock-timeout, if given). */
  lockHeld: 4,
} as const;
