// offersync completion bash|zsh|fish: a completion script for commands, their flags, and the values of the flags
// that take a fixed set (kinds, formats, log levels) or a path. Flags are read from each command's flag table,
// the one its parser takes, so the script offers no flag the command refuses and never falls behind one.
import { EXIT, UsageError, type CliIO, type Command } from './command.ts';
import { ONLY_VALUES } from './target-flags.ts';

/** The command table as main.ts holds it (passed in: this file must not import main.ts, which imports it). */
export type CommandTable = Readonly<Record<string, { summary: string; load: () => Promise<{ command: Command }> }>>;

const HELP = `Usage: offersync completion bash|zsh|fish

Prints a shell completion script for commands, flags and kinds. Install it with:
  bash: echo 'source <(offersync completion bash)' >> ~/.bashrc
  zsh:  echo 'source <(offersync completion zsh)' >> ~/.zshrc
  fish: offersync completion fish > ~/.config/fish/completions/offersync.fish

Examples:
  source <(offersync completion bash)
`;

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** Values of the flags that take one of a fixed set; the other flags with a value take a path. */
const FLAG_VALUES: Readonly<Record<string, readonly string[]>> = {
  only: ONLY_VALUES,
  kind: ['account', 'item', 'topup'],
  format: ['text', 'json', 'github', 'gcc'],
  'log-level': ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
};
/** Where one command's flag takes other values than the same flag elsewhere (pull --format: file formats). */
const COMMAND_FLAG_VALUES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  pull: { format: ['csv', 'json', 'ndjson', 'yaml', 'xlsx', 'ods'] },
};
const commandValues = (): [string, string, readonly string[]][] =>
  Object.entries(COMMAND_FLAG_VALUES).flatMap(([c, flags]) => Object.entries(flags).map(([f, v]) => [c, f, v]));
const DIRECTORY_FLAGS = new Set(['catalogue']);
const PATH_FLAGS = new Set(['config', 'state', 'out', 'plan', 'file', 'write', 'persist']);

export interface Flag {
  readonly name: string;
  readonly takesValue: boolean;
}
export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly flags: readonly Flag[];
}

/** Each command's flags, from the table its parser takes: only flags the command accepts. */
export async function commandSpecs(commands: CommandTable): Promise<CommandSpec[]> {
  const specs: CommandSpec[] = [];
  for (const [name, entry] of Object.entries(commands)) {
    const { options } = (await entry.load()).command;
    const flags = Object.entries(options).map(([flag, o]) => ({ name: flag, takesValue: o.type === 'string' }));
    specs.push({ name, summary: entry.summary, flags });
  }
  specs.push({ name: 'completion', summary: COMPLETION_SUMMARY, flags: [{ name: 'help', takesValue: false }] });
  return specs;
}

const words = (xs: readonly string[]): string => xs.join(' ');
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashScript(specs: readonly CommandSpec[]): string {
  const values = Object.entries(FLAG_VALUES)
    .map(([f, v]) => `    --${f}) COMPREPLY=($(compgen -W "${words(v)}" -- "$cur")); return ;;`)
    .join('\n');
  const paths = [...PATH_FLAGS].map((f) => `--${f}`).join('|');
  const dirs = [...DIRECTORY_FLAGS].map((f) => `--${f}`).join('|');
  const perCommand = specs
    .map((s) => `    ${s.name}) flags="${words(s.flags.map((f) => `--${f.name}`))}" ;;`)
    .join('\n');
  return `# offersync completion for bash: source <(offersync completion bash)
_offersync() {
  local cur prev cmd flags
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd="\${COMP_WORDS[1]}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${words(specs.map((s) => s.name))} --help --version" -- "$cur"))
    return
  fi
  if [[ $cmd == completion ]]; then
    COMPREPLY=($(compgen -W "${words(SHELLS)}" -- "$cur"))
    return
  fi
${commandValues()
  .map(
    ([c, f, v]) =>
      `  if [[ $cmd == ${c} && $prev == --${f} ]]; then COMPREPLY=($(compgen -W "${words(v)}" -- "$cur")); return; fi`,
  )
  .join('\n')}
  case "$prev" in
${values}
    ${paths}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    ${dirs}) COMPREPLY=($(compgen -d -- "$cur")); return ;;
  esac
  case "$cmd" in
${perCommand}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  else
    COMPREPLY=($(compgen -d -- "$cur"))
  fi
}
complete -F _offersync offersync
`;
}

export function zshScript(specs: readonly CommandSpec[]): string {
  const commands = specs.map((s) => `    ${quote(`${s.name}:${s.summary}`)}`).join('\n');
  const values = Object.entries(FLAG_VALUES)
    .map(([f, v]) => `    --${f}) compadd -- ${words(v)}; return ;;`)
    .join('\n');
  const paths = [...PATH_FLAGS].map((f) => `--${f}`).join('|');
  const dirs = [...DIRECTORY_FLAGS].map((f) => `--${f}`).join('|');
  const perCommand = specs
    .map((s) => `    ${s.name}) compadd -- ${words(s.flags.map((f) => `--${f.name}`))} ;;`)
    .join('\n');
  return `#compdef offersync
# offersync completion for zsh: source <(offersync completion zsh)
_offersync() {
  local -a commands
  commands=(
${commands}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  if [[ $words[2] == completion ]]; then
    compadd -- ${words(SHELLS)}
    return
  fi
${commandValues()
  .map(
    ([c, f, v]) =>
      `  if [[ $words[2] == ${c} && $words[CURRENT-1] == --${f} ]]; then compadd -- ${words(v)}; return; fi`,
  )
  .join('\n')}
  case $words[CURRENT-1] in
${values}
    ${paths}) _files; return ;;
    ${dirs}) _files -/; return ;;
  esac
  if [[ $PREFIX != -* ]]; then
    _files -/
    return
  fi
  case $words[2] in
${perCommand}
  esac
}
compdef _offersync offersync
`;
}

export function fishScript(specs: readonly CommandSpec[]): string {
  const lines = [
    '# offersync completion for fish: offersync completion fish > ~/.config/fish/completions/offersync.fish',
    'complete -c offersync -f',
  ];
  for (const s of specs)
    lines.push(`complete -c offersync -n __fish_use_subcommand -a ${s.name} -d ${quote(s.summary)}`);
  lines.push(`complete -c offersync -n '__fish_seen_subcommand_from completion' -a ${quote(words(SHELLS))}`);
  for (const s of specs) {
    for (const f of s.flags) {
      let line = `complete -c offersync -n '__fish_seen_subcommand_from ${s.name}' -l ${f.name}`;
      const fixed = COMMAND_FLAG_VALUES[s.name]?.[f.name] ?? FLAG_VALUES[f.name];
      if (fixed) line += ` -x -a ${quote(words(fixed))}`;
      else if (DIRECTORY_FLAGS.has(f.name)) line += ` -x -a '(__fish_complete_directories)'`;
      else if (f.takesValue) line += ' -r -F';
      lines.push(line);
    }
  }
  return `${lines.join('\n')}\n`;
}

export const COMPLETION_SUMMARY = 'print a shell completion script (bash, zsh, fish)';

export async function runCompletion(argv: readonly string[], io: CliIO, commands: CommandTable): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const shell = argv[0];
  if (argv.length !== 1 || !(SHELLS as readonly string[]).includes(shell ?? ''))
    throw new UsageError(`expected one shell: ${SHELLS.join(', ')}; got ${argv.length ? argv.join(' ') : 'none'}`);
  const specs = await commandSpecs(commands);
  const script = { bash: bashScript, zsh: zshScript, fish: fishScript }[shell as Shell](specs);
  io.stdout.write(script);
  return EXIT.ok;
}
