import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { requestsByRoute } from '../support/harness.ts';
import { queryOnce, startPostgres, type TestPostgres } from '../support/postgres.ts';
import {
  converged,
  type Fleet,
  type Ready,
  readyz,
  type ReplicaProc,
  startFleet,
  startReplica,
  stopFleet,
  writeItems,
} from '../support/replica-fleet.ts';
import { until } from '../support/until.ts';

const SELLERS = ['s1', 's2', 's3', 's4', 's5', 's6'];
const TTL_MS = 3_000;
/** One run of a seller here takes well under this; the bound of the failover check is TTL + this. */
const ONE_RUN_MS = 20_000;

let server: TestPostgres;
let url: string;
let sandbox: RunningSandbox;
let fleet: Fleet;
const procs: ReplicaProc[] = [];
let failed = true;

const query = <R>(sql: string, params: unknown[] = []) => queryOnce<R>(url, sql, params);

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
  fleet = await startFleet({ url, sellers: SELLERS, items: 4, ttlMs: TTL_MS, ratePerSec: 200, prefix: 'replicas' });
  sandbox = fleet.sandbox;
}, 60_000);

afterAll(async () => {
  await stopFleet(fleet, procs, { failed });
  await server?.stop();
});

describe('replicas sharing sellers through PostgreSQL', () => {
  it('split six sellers, survive a SIGKILL within the lease TTL plus one run, and let go on SIGTERM', async () => {
    const all = [await startReplica(fleet, 1), await startReplica(fleet, 2), await startReplica(fleet, 3)];
    procs.push(...all);
    await until(
      'the first convergence of every seller',
      async () => (converged(fleet, 100) ? true : undefined),
      90_000,
    );
    // Fair share: 6 sellers over 3 replicas, 2 each, every seller on exactly one replica.
    const split = await until(
      'every replica ready with its fair share',
      async () => {
        const r = await Promise.all(all.map(readyz));
        return r.every((x) => x?.ready && x.held.length === 2) ? (r as Ready[]) : undefined;
      },
      30_000,
    );
    expect(split.flatMap((r) => r.held).sort()).toEqual(SELLERS);

    // Kill the replica that holds s1, mid-flight, then change every catalogue.
    const victim = all.find((_, i) => split[i]?.held.includes('s1')) ?? all[0];
    if (!victim) throw new Error('no replica');
    const victimId = split[all.indexOf(victim)]?.replica;
    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    for (const s of SELLERS) writeItems(fleet, s, 250);
    await until(
      'convergence after the kill',
      async () => (converged(fleet, 250) ? true : undefined),
      TTL_MS + ONE_RUN_MS,
    );
    const failoverMs = Date.now() - killedAt;
    console.log(
      `replicas: all 6 sellers converged ${failoverMs} ms after SIGKILL of one of 3 (lease TTL ${TTL_MS} ms)`,
    );

    const live = all.filter((p) => p !== victim);
    const after = await until(
      'the survivors holding every seller',
      async () => {
        const r = await Promise.all(live.map(readyz));
        return r.every((x) => x?.ready) && r.flatMap((x) => x?.held ?? []).length === SELLERS.length
          ? (r as Ready[])
          : undefined;
      },
      TTL_MS + ONE_RUN_MS,
    );
    expect(after.flatMap((r) => r.held).sort()).toEqual(SELLERS);
    expect(after.map((r) => r.held.length).sort()).toEqual([3, 3]);
    const leases = await query<{ seller: string; holder: string }>(
      "SELECT seller, holder FROM seller_leases WHERE holder <> ''",
    );
    const liveIds = after.map((r) => r.replica);
    expect(leases.map((l) => l.seller).sort()).toEqual(SELLERS);
    for (const l of leases) {
      expect(liveIds).toContain(l.holder);
      expect(l.holder).not.toBe(victimId);
    }

    // Zero duplicates: one create per offer over the whole test, no 409, and every offer mapped once.
    expect(requestsByRoute(sandbox)['POST /api/v1/items']).toBe(SELLERS.length * fleet.items);
    expect(sandbox.dump().items).toHaveLength(SELLERS.length * fleet.items);
    const mapped = await query<{ seller: string; external_id: string; remote_id: number }>(
      `SELECT seller, external_id, remote_id FROM offers WHERE kind = 'item'`,
    );
    expect(mapped.every((m) => m.external_id.startsWith(`${m.seller}-`) && m.remote_id !== null)).toBe(true);
    expect(mapped).toHaveLength(SELLERS.length * fleet.items);
    // Each seller's account numbers its offers: one mapping per remote offer within a seller.
    expect(new Set(mapped.map((m) => `${m.seller}/${m.remote_id}`)).size).toBe(SELLERS.length * fleet.items);

    // SIGTERM: each survivor lets go of its sellers and exits 0.
    for (const p of live) p.child.kill('SIGTERM');
    expect(await Promise.all(live.map((p) => p.exited))).toEqual([0, 0]);
    // Let go: the rows stay (their epochs only grow) with no holder.
    expect(await query("SELECT seller FROM seller_leases WHERE holder <> ''")).toEqual([]);
    expect(live.map((p) => p.stderr()).join('')).not.toContain(server.password);
    failed = false;
  }, 240_000);
});
