// The run's shared PostgreSQL server (shared-postgres.ts), as a process of its own: starts a cluster, writes where
// it listens to the file named by its argument, and stops it when its stdin closes (the run's end) or on SIGTERM.
import { renameSync, writeFileSync } from 'node:fs';
import type { SharedPostgresReady } from './shared-postgres.ts';
import { startOwnPostgres } from './postgres.ts';

const readyFile = process.argv[2];
if (!readyFile) throw new Error('usage: shared-postgres-process.ts <ready.json>');
/** Written aside and renamed: a reader never sees half of it. */
const ready = (r: SharedPostgresReady) => {
  writeFileSync(`${readyFile}.part`, JSON.stringify(r));
  renameSync(`${readyFile}.part`, readyFile);
};

try {
  const server = await startOwnPostgres();
  ready({ port: server.port, password: server.password, dataDir: server.dataDir });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    process.exit(0);
  };
  process.stdin.on('end', stop).resume();
  process.on('SIGTERM', stop);
} catch (err) {
  ready({ error: String(err) });
}
