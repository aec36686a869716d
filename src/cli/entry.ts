// The process entry point: runs main() with this process's argv and stdio, whatever name it was started by
// (bin/offersync.js, a symlink, npx, `node dist/cli/entry.js`). main.ts only exports, so tests import it freely.
import { scrubSecrets } from '../log/scrubber.ts';
import { escapeControls } from '../log/terminal-text.ts';
import { dotEnv } from './dot-env.ts';
import { startedByNpm, watchLauncher } from './launcher-watch.ts';
import { main } from './main.ts';
import { installSignalHandlers } from './signals.ts';
import { favourMemoryOverSpeed } from './v8-memory.ts';

favourMemoryOverSpeed();
installSignalHandlers();
Object.assign(process.env, dotEnv(process.cwd(), process.env));
// The launcher gone is a SIGTERM: the command stops as it would on one (no further write; in-flight ones finish).
if (startedByNpm(process.env)) watchLauncher(() => process.kill(process.pid, 'SIGTERM'));
main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`offersync: ${escapeControls(scrubSecrets(text))}\n`);
    process.exitCode = 1;
  },
);
