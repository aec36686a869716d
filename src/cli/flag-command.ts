// How a command starts: its flags parsed against its one table (a bad flag is a UsageError) and --help answered
// with its help text, before its own work runs on the parsed flags.
import { type CliIO, type Command, EXIT, type FlagTable } from './command.ts';
import { parseFlags } from './common-flags.ts';

/** What parseFlags gives a command whose table is O: `values` typed by the table, and the positionals. */
export type ParsedFlags<O extends FlagTable> = ReturnType<typeof parseFlags<O>>;

export interface FlagCommand<O extends FlagTable> {
  readonly name: string;
  /** The flags, `help` among them. */
  readonly options: O;
  /** What --help prints. */
  readonly help: string;
  /** Whether it takes arguments besides the flags (a directory, an external_id, a subcommand). */
  readonly positionals?: boolean;
  /** Returns the exit code. Throws UsageError for bad flags (exit 2). */
  run(flags: ParsedFlags<O>, io: CliIO): Promise<number>;
}

export function flagCommand<O extends FlagTable>(def: FlagCommand<O>): Command {
  return {
    name: def.name,
    options: def.options,
    async run(argv, io) {
      const flags = parseFlags(argv, def.options, def.positionals ?? false);
      if ((flags.values as { readonly help?: boolean }).help) {
        io.stdout.write(def.help);
        return EXIT.ok;
      }
      return def.run(flags, io);
    },
  };
}
