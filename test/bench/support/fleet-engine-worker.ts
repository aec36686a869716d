// One replica process of the fleet-engines bench: opens the state db, starts the engine named by the
// FLEET_ENGINE variable (balancer or pg-boss), follows the bench's sellers table, and stops on SIGTERM. The
// bench kills it with SIGKILL or pauses it with SIGSTOP to see what the engine does.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openPostgresStateDatabase } from '../../../src/state/postgres-state-database.ts';
import { startBalancerEngine } from './balancer-engine.ts';
import type { EngineOptions } from './engine.ts';
import { startPgBossEngine } from './pg-boss-engine.ts';

const options = JSON.parse(process.env.FLEET_OPTIONS ?? '{}') as EngineOptions;
const engineName = process.env.FLEET_ENGINE;
const { database } = await openPostgresStateDatabase({ url: options.url });
const engine =
  engineName === 'pg-boss' ? await startPgBossEngine(database, options) : await startBalancerEngine(database, options);

async function readSellers(): Promise<string[]> {
  const rows = await sql<{ seller: string }>`SELECT seller FROM bench_sellers ORDER BY seller`.execute(database.db);
  return rows.rows.map((r) => r.seller);
}

engine.sellersChanged(await readSellers());
await engine.start();
process.stdout.write('ready\n');
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});
while (!stopping) {
  await sleep(100);
  // A read that fails (the bench pausing the database's answers) keeps the list as it was.
  const now = await readSellers().catch(() => null);
  if (now) engine.sellersChanged(now);
}
await engine.stop();
await database.close();
process.exit(0);
