// offersync status: what the state db knows, without touching the network.
import { stateConnection } from '../config/state-connection.ts';
import { existsSync } from 'node:fs';
import { escapeLines, oneLine } from '../log/terminal-text.ts';
import { loadLearntRate } from '../queue/learnt-rate.ts';
import { reprobeAt } from '../capabilities/reprobe.ts';
import { EXIT, type CliIO, type Command } from './command.ts';
import { formatReport } from './format-report.ts';
import { readRunReport, runReportDir } from '../sync/report/run-report-file.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, SELLER_HELP, SELLER_OPTION } from './common-flags.ts';
import { flagCommand } from './flag-command.ts';
import type { Config } from '../config/config.ts';
import { openPostgresStateDatabase, type PostgresStateDatabase } from '../state/postgres-state-database.ts';
import { chooseServedSellers } from './served-sellers.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { silentLogger } from '../log/logger.ts';
import { redactUrl } from '../state/postgres-error.ts';
import { loadBackoffs } from '../sync/plan/offer-backoff.ts';
import { readGuardStop } from '../sync/plan/guard-stop.ts';
import { salesLedger } from '../sales/sales-ledger.ts';
import type { SoldEntry } from '../sales/sold-log.ts';
import { openStore, reprobeAfterMs } from './services.ts';

const HELP = `Usage: offersync status [--json] [flags]

From the state db only: offers by kind and marketplace status, the last runs, writes left unfinished by a
crash, what offersync has learnt of the marketplace's routes, the latest sold offers, and which offersync
(a daemon replica) holds the seller's writer lease. With several sellers, one section each.

  --run <id>             every offer of one run (its id is in the run's last line and under Last runs)
  --json                 as JSON
${SELLER_HELP}

${CONFIG_HELP}

Examples:
  offersync status
  offersync status --run 20261124T233549-323414  # every offer of that run
  offersync status --json | jq .runs
`;

const OPTIONS = { ...CONFIG_OPTIONS, ...SELLER_OPTION, json: { type: 'boolean' }, run: { type: 'string' } } as const;

export const command: Command = flagCommand({
  name: 'status',
  options: OPTIONS,
  help: HELP,
  async run({ values }, io) {
    let sellers: readonly Config[];
    try {
      const config = loadConfig({ flags: configFlags(values), env: io.env, cwd: io.cwd });
      sellers = await chooseServedSellers(config, values.seller, io.env);
    } catch (err) {
      if (err instanceof ConfigError) {
        io.stderr.write(`offersync status: ${oneLine(err.message)}\n`);
        return EXIT.usage;
      }
      throw err;
    }
    const first = sellers[0];
    if (values.run !== undefined) return runStatus(io, sellers, values.run, values.json === true);
    // With PostgreSQL, one pool serves every seller.
    const shared = first?.state.url ? (await openPostgresStateDatabase(stateConnection(first))).database : undefined;
    try {
      if (sellers.length === 1 && first) {
        const one = await sellerStatus(first, shared);
        io.stdout.write(values.json ? `${JSON.stringify(one.json, null, 2)}\n` : one.text);
        return EXIT.ok;
      }
      const all: { seller: string; text: string; json: Record<string, unknown> }[] = [];
      for (const c of sellers) all.push({ seller: c.seller, ...(await sellerStatus(c, shared)) });
      if (values.json)
        io.stdout.write(`${JSON.stringify({ sellers: all.map((a) => ({ seller: a.seller, ...a.json })) }, null, 2)}\n`);
      else io.stdout.write(all.map((a) => `== seller ${a.seller}\n${a.text}`).join('\n'));
      return EXIT.ok;
    } finally {
      await shared?.close();
    }
  },
});

/** One seller's status, as text and as JSON. */
async function sellerStatus(
  config: Config,
  database: PostgresStateDatabase | undefined,
): Promise<{ text: string; json: Record<string, unknown> }> {
  const where = config.state.url ? redactUrl(config.state.url) : config.state.path;
  if (!config.state.url && config.state.path !== ':memory:' && !existsSync(config.state.path)) {
    return {
      text: escapeLines([`No state db at ${config.state.path} yet: run offersync reconcile first.`]),
      json: { state: config.state.path, offers: {} },
    };
  }
  const store = await openStore(config, silentLogger, database);
  try {
    const offers = await store.listOffers();
    const byKind: Record<string, Record<string, number>> = {};
    let lossy = 0;
    for (const o of offers) {
      const row = byKind[o.kind] ?? {};
      byKind[o.kind] = row;
      const status = o.remoteStatus ?? 'unknown';
      row[status] = (row[status] ?? 0) + 1;
      if (o.lossyFields.length > 0) lossy++;
    }
    const runs = await store.listRuns(5);
    const journal = await store.journalUnfinished();
    const now = Date.now();
    const caps = (await store.listCapabilities()).map((c) => ({
      ...c,
      reprobeAt: reprobeAt(c, reprobeAfterMs(config)),
    }));
    const learntRate = await loadLearntRate(store, now);
    const heldBack = [...(await loadBackoffs(store)).values()].sort((a, b) => b.lastRefusedAt - a.lastRefusedAt);
    const ledger = salesLedger(config.state.url !== '', config.state.path, store);
    // Oldest of the ten first, as the file reads.
    const sold: readonly SoldEntry[] = (await ledger.latest(10)).reverse();
    const guardStop = await readGuardStop(store);
    const lease = await store.currentLease();
    const json = {
      state: where,
      // Which offersync (a daemon replica, or a reconcile) holds this seller's writer lease, if any.
      lease: lease ?? null,
      offers: byKind,
      lossy_offers: lossy,
      runs,
      journal_unfinished: journal,
      capabilities: caps,
      learnt_rate: learntRate ?? null,
      held_back: heldBack,
      sold,
      guard_stopped: guardStop,
    };
    const out: string[] = [`State db: ${where}`];
    out.push(
      lease
        ? `Writer lease: instance ${lease.holder} (pid ${lease.pid} on ${lease.hostname}), ` +
            `${lease.expiresAt > Date.now() ? 'until' : 'expired at'} ${new Date(lease.expiresAt).toISOString()}`
        : 'Writer lease: free',
    );
    out.push('', 'Offers (by marketplace status):');
    if (offers.length === 0) out.push('  none yet');
    for (const [kind, row] of Object.entries(byKind))
      out.push(
        `  ${kind.padEnd(8)} ${Object.entries(row)
          .map(([s, n]) => `${n} ${s}`)
          .join(', ')}`,
      );
    if (lossy > 0)
      out.push(`  ${lossy} offer(s) with fields the marketplace stores differently (compared with what was sent)`);
    out.push('', 'Last runs:');
    if (runs.length === 0) out.push('  none');
    for (const r of runs) {
      const counts = Object.entries(r.counts)
        .map(([k, n]) => `${k}=${n}`)
        .join(' ');
      out.push(
        `  ${new Date(r.startedAt).toISOString()}  ${r.command.padEnd(9)} ` +
          `${String(r.outcome ?? 'running').padEnd(9)} ${counts}  (run ${r.id})`,
      );
    }
    const last = runs.find((r) => r.outcome !== null && r.outcome !== 'running');
    const lastReport = last ? readRunReport(config.state.path, last.id) : undefined;
    const archived = lastReport?.outcomes.filter((o) => o.outcome === 'archived') ?? [];
    if (lastReport && archived.length > 0) {
      out.push('', `Archived by the last run (run ${lastReport.runId}):`);
      for (const o of archived.slice(0, ARCHIVES_SHOWN))
        out.push(`  ${o.kind} ${o.externalId} (${o.reason ?? o.message ?? 'archived'})`);
      if (archived.length > ARCHIVES_SHOWN)
        out.push(`  ... and ${archived.length - ARCHIVES_SHOWN} more: see offersync status --run ${lastReport.runId}`);
    }
    if (guardStop) {
      out.push(
        '',
        `The last run was stopped by a guard (run ${guardStop.runId} at ${guardStop.at}); nothing was sent:`,
      );
      for (const m of guardStop.messages) out.push(`  ${m}`);
    }
    out.push('', `Unfinished writes (settled at the next start): ${journal.length}`);
    for (const j of journal.slice(0, 10))
      out.push(`  ${j.op} ${j.kind} ${j.keys.join(', ')} (${j.state} since ${new Date(j.updatedAt).toISOString()})`);
    if (caps.length > 0) {
      out.push('', 'Marketplace capabilities learnt:');
      for (const c of caps) {
        // A learnt body key or batch limit is its detail: "POST /items/bulk-update: batch limit: 100".
        const verdict = c.usable ? (c.detail ?? 'usable') : `not served (${c.detail ?? ''})`;
        const next =
          c.reprobeAt === null
            ? ''
            : c.reprobeAt <= now
              ? ', asked again at the next use'
              : `, asked again in ${age(c.reprobeAt - now)}`;
        out.push(`  ${c.name}: ${verdict}; learnt ${age(now - c.learntAt)} ago${next}`);
      }
    }
    if (heldBack.length > 0) {
      out.push('', `Offers the marketplace refused, held back (offerBackoff): ${heldBack.length}`);
      for (const b of heldBack.slice(0, 20)) {
        const when =
          b.nextAttemptAt === null
            ? 'parked until its catalogue entry changes'
            : b.nextAttemptAt <= now
              ? 'sent again at the next run'
              : `sent again in ${age(b.nextAttemptAt - now)} or when its entry changes`;
        const status = b.status === null ? '' : `${b.status} `;
        out.push(`  ${b.kind} ${b.externalId}: ${status}${b.message} (${b.refusals} refusals); ${when}`);
      }
      if (heldBack.length > 20) out.push(`  ... and ${heldBack.length - 20} more (--json lists them all)`);
    }
    if (learntRate) {
      const hold = learntRate.hold ? `, held below a 429 found ${age(now - learntRate.hold.at)} ago` : '';
      out.push('', `Request rate learnt (rateLimit.ratePerSec: auto): ${round(learntRate.ratePerSec)}/s${hold}`);
    }
    if (sold.length > 0) {
      out.push('', `Latest sold/refunded (${ledger.where}):`);
      for (const s of sold) {
        const units = typeof s.quantity === 'number' ? ` ${s.quantity} unit(s)` : '';
        const title = typeof s.title === 'string' ? ` (${s.title})` : '';
        out.push(
          `  ${String(s.kind)} ${String(s.external_id)}${title} ${String(s.status)}${units} ` +
            `${String(s.sold_at ?? s.seen_at)}`,
        );
      }
    }
    // Each line escaped: external_ids, files and the marketplace's messages are data.
    return { text: escapeLines(out), json };
  } finally {
    await store.close();
  }
}

const ARCHIVES_SHOWN = 20;

/** status --run ID: every offer of that run, from its report file beside the state db. */
function runStatus(io: CliIO, sellers: readonly Config[], runId: string, json: boolean): number {
  for (const c of sellers) {
    const report = readRunReport(c.state.path, runId);
    if (!report) continue;
    io.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, { limit: Infinity }));
    return EXIT.ok;
  }
  const where = sellers.map((c) => runReportDir(c.state.path) ?? c.state.path).join(', ');
  io.stderr.write(
    `offersync status: no report of run ${oneLine(runId)} in ${where}: check the id under Last runs ` +
      '(offersync status); only the last state.keepRuns runs are kept\n',
  );
  return EXIT.usage;
}

/** 45s, 12m, 5h, 3d: enough to tell a verdict's age at a glance. */
function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

function round(n: number): string {
  return String(Math.round(n * 10) / 10);
}
