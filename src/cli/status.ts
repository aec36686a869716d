// offersync status: what the state db knows, without touching the network.
import { existsSync, readFileSync } from 'node:fs';
import { loadLearntRate } from './learnt-rate.ts';
import { EXIT, type Command } from './command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, parseFlags } from './common-flags.ts';
import type { Config } from '../config/config.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { silentLogger } from '../log/logger.ts';
import { loadBackoffs } from '../sync/offer-backoff.ts';
import { soldLogPath } from '../sync/sold-log.ts';
import { openStore } from './services.ts';

const HELP = `Usage: offersync status [--json] [flags]

From the state db only: offers by kind and marketplace status, the last runs, writes left unfinished by a
crash, what offersync has learnt of the marketplace's routes, and the latest sold offers.

${CONFIG_HELP}
`;

export const command: Command = {
  name: 'status',
  summary: 'what the state db knows: offers, runs, journal, sold',
  async run(argv, io) {
    const { values } = parseFlags(argv, { ...CONFIG_OPTIONS, json: { type: 'boolean' } });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    let config: Config;
    try {
      config = loadConfig({ flags: configFlags(values), env: io.env, cwd: io.cwd });
    } catch (err) {
      if (err instanceof ConfigError) {
        io.stderr.write(`offersync status: ${err.message}\n`);
        return EXIT.usage;
      }
      throw err;
    }
    if (config.state.path !== ':memory:' && !existsSync(config.state.path)) {
      io.stdout.write(`No state db at ${config.state.path} yet: run offersync reconcile first.\n`);
      return EXIT.ok;
    }
    const store = openStore(config, silentLogger);
    try {
      const offers = store.listOffers();
      const byKind: Record<string, Record<string, number>> = {};
      let lossy = 0;
      for (const o of offers) {
        const row = byKind[o.kind] ?? {};
        byKind[o.kind] = row;
        const status = o.remoteStatus ?? 'unknown';
        row[status] = (row[status] ?? 0) + 1;
        if (o.lossyFields.length > 0) lossy++;
      }
      const runs = store.listRuns(5);
      const journal = store.journalUnfinished();
      const now = Date.now();
      const reprobeMs = config.capabilities.reprobeAfterHours * 3_600_000;
      // A refused capability is asked again once its verdict is reprobeAfterHours old.
      const caps = store.listCapabilities().map((c) => ({ ...c, reprobeAt: c.usable ? null : c.learntAt + reprobeMs }));
      const learntRate = loadLearntRate(store, now);
      const heldBack = [...loadBackoffs(store).values()].sort((a, b) => b.lastRefusedAt - a.lastRefusedAt);
      const soldPath = soldLogPath(config.state.path);
      const sold =
        soldPath && existsSync(soldPath)
          ? readFileSync(soldPath, 'utf8')
              .trim()
              .split('\n')
              .filter(Boolean)
              .slice(-10)
              .map((l) => JSON.parse(l) as Record<string, unknown>)
          : [];
      if (values.json) {
        io.stdout.write(
          `${JSON.stringify(
            {
              state: config.state.path,
              offers: byKind,
              lossy_offers: lossy,
              runs,
              journal_unfinished: journal,
              capabilities: caps,
              learnt_rate: learntRate ?? null,
              held_back: heldBack,
              sold,
            },
            null,
            2,
          )}\n`,
        );
        return EXIT.ok;
      }
      const out: string[] = [`State db: ${config.state.path}`, '', 'Offers (by marketplace status):'];
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
            `${String(r.outcome ?? 'running').padEnd(9)} ${counts}`,
        );
      }
      out.push('', `Unfinished writes (settled at the next start): ${journal.length}`);
      for (const j of journal.slice(0, 10))
        out.push(`  ${j.op} ${j.kind} ${j.keys.join(', ')} (${j.state} since ${new Date(j.updatedAt).toISOString()})`);
      if (caps.length > 0) {
        out.push('', 'Marketplace capabilities learnt:');
        for (const c of caps) {
          const verdict = c.usable ? 'usable' : `not served (${c.detail ?? ''})`;
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
        out.push('', `Latest sold/refunded (${soldPath}):`);
        for (const s of sold)
          out.push(
            `  ${String(s.kind)} ${String(s.external_id)} ${String(s.status)} ${String(s.sold_at ?? s.seen_at)}`,
          );
      }
      io.stdout.write(`${out.join('\n')}\n`);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};

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
