// The request queue against a server that enforces R requests/s (docs/measurements.md, What the benches
// check: wall time within 10% of requests / R, no 429 after the first). A local node:http server on 127.0.0.1
// runs a token bucket (as the sandbox does) and answers 429 with Retry-After in whole seconds; N requests go
// through RequestQueue at rate R. Exits non-zero when a figure misses its goal. BENCH_QUEUE_RATE and
// BENCH_QUEUE_SECONDS (the ideal duration of each scenario, N = R * seconds) override the size.
//
// "429 after the first" counts 429 episodes after the first: 429s to requests the queue admitted after it
// had taken in an earlier 429. Those already admitted or on the wire when it came back could not have known;
// they are shown as "in flight". A 429 episode costs a fixed ~2 s (the
// Retry-After pause, then the AIMD climb back), so a run needs some length before the ratio means much.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RequestQueue } from '../../src/queue/request-queue.ts';
import { TokenBucket } from '../../src/queue/token-bucket.ts';

const R = Number(process.env.BENCH_QUEUE_RATE ?? 50);
const N = Math.round(R * Number(process.env.BENCH_QUEUE_SECONDS ?? 60));

interface Scenario {
  readonly name: string;
  /** The server's bucket capacity: at least the client's burst, or smaller (then a first 429 is expected). */
  readonly serverBurst: number;
  /** Goal for wall / (requests / R). */
  readonly maxRatio: number;
}

const scenarios: readonly Scenario[] = [
  { name: `server burst ${R} (= client burst)`, serverBurst: R, maxRatio: 1.1 },
  // The client's first burst overruns the server: a first 429, a pause, the halved rate climbing back.
  { name: `server burst ${Math.ceil(R / 5)} (< client burst)`, serverBurst: Math.ceil(R / 5), maxRatio: 1.1 },
];

class RateLimited extends Error {
  readonly retryable = true;
  readonly rateLimited = true;
  readonly outcomeUnknown = false;
  constructor(readonly retryAfterMs: number | undefined) {
    super('429');
  }
}

function startServer(
  serverBurst: number,
): Promise<{ server: Server; url: string; counts: { ok: number; limited: number; limitedAt: number[] } }> {
  const bucket = new TokenBucket({ ratePerSec: R, capacity: serverBurst, now: performance.now() });
  const counts = { ok: 0, limited: 0, limitedAt: [] as number[] };
  const server = createServer((req, res) => {
    req.resume();
    const wait = bucket.take(performance.now());
    if (wait > 0) {
      counts.limited++;
      counts.limitedAt.push(counts.ok + counts.limited);
      // Retry-After is whole seconds, as most servers send it.
      res.writeHead(429, {
        'content-type': 'application/json',
        'retry-after': String(Math.max(1, Math.ceil(wait / 1000))),
      });
      res.end('{"message":"Too Many Requests"}');
      return;
    }
    counts.ok++;
    // A little work per request, as a real server has.
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }, 3);
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, counts }),
    ),
  );
}

async function run(s: Scenario): Promise<boolean> {
  const { server, url, counts } = await startServer(s.serverBurst);
  let episodes = 0;
  let inFlight = 0;
  const queue = new RequestQueue({
    ratePerSec: R,
    onEvent: (e) => {
      if (e.type !== 'rate-limited') return;
      if (e.firstOfEpisode) episodes++;
      else inFlight++;
    },
  });
  const send = async (): Promise<unknown> => {
    const res = await fetch(url);
    const body = await res.text();
    if (res.status === 429) {
      const h = Number(res.headers.get('retry-after'));
      throw new RateLimited(Number.isFinite(h) ? h * 1000 : undefined);
    }
    return body;
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: N }, (_, i) => queue.schedule({ method: 'GET', path: `/x/${i}`, idempotent: true }, send)),
  );
  const wallMs = performance.now() - started;
  server.close();
  server.closeAllConnections();

  const st = queue.stats();
  const ideal = (st.requests / R) * 1000;
  const ratio = wallMs / ideal;
  const after = Math.max(0, episodes - 1);
  const ok = ratio <= s.maxRatio && after === 0 && counts.ok === N;
  process.stdout.write(
    `${s.name}: ${N} requests at ${R}/s\n` +
      `  sent ${st.requests}, 429s ${counts.limited} (at request ` +
      `#${counts.limitedAt.slice(0, 5).join(', #') || '-'}), retries ${st.retries}\n` +
      `  wall ${(wallMs / 1000).toFixed(2)} s, requests/R ${(ideal / 1000).toFixed(2)} s\n` +
      `  requests/R ratio ${ratio.toFixed(3)} (goal <= ${s.maxRatio})\n` +
      `  429 after first ${after} (goal 0; ${inFlight} more were already in flight)\n` +
      `  peak rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB\n` +
      `  ${ok ? 'ok' : 'MISSED'}\n`,
  );
  return ok;
}

let failed = 0;
for (const s of scenarios) if (!(await run(s))) failed++;
process.exitCode = failed > 0 ? 1 : 0;
