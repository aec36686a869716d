// Sends notifications to the seller's webhooks: one small JSON POST each, in the background (a run never waits
// for it), one target at a time in order, retried with exponential backoff and jitter on a network error, a
// timeout, 408, 429 or 5xx (Retry-After honoured). A webhook URL can hold a token (Telegram's /bot<token>/),
// so logs name only its origin.
import { silentLogger, type Logger } from '../log/logger.ts';
import { scrubSecrets } from '../log/scrubber.ts';
import { notificationText, type Notification, type NotifyEvent } from './notification.ts';

export interface WebhookTarget {
  readonly url: string;
  /** The events this URL gets. */
  readonly events: ReadonlySet<NotifyEvent>;
}

export interface WebhookNotifierOptions {
  readonly targets: readonly WebhookTarget[];
  /** Attempts per notification and target. Default 6. */
  readonly maxAttempts?: number;
  /** Per attempt, milliseconds. Default 10000. */
  readonly timeoutMs?: number;
  /** First retry delay; doubles each time, with jitter. Default 1000 ms. */
  readonly retryBaseMs?: number;
  /** Longest retry delay (and Retry-After honoured). Default 60000 ms. */
  readonly retryMaxMs?: number;
  /** Notifications waiting per target beyond which new ones are dropped (logged). Default 1000. */
  readonly maxQueued?: number;
  readonly logger?: Logger;
}

/** The URL as logs may show it: scheme and host only (a path or query can hold a token). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' && !u.search ? '/' : '/…'}`;
  } catch {
    return '(not a URL)';
  }
}

/** The body for one target: the notification, a `text` line, and what chat targets need to show it. */
export function webhookBody(url: string, n: Notification): Record<string, unknown> {
  const text = notificationText(n);
  const body: Record<string, unknown> = { text, ...n };
  const u = new URL(url);
  // Telegram's sendMessage takes chat_id and text; the chat_id is written in the URL given as the target.
  const chat = u.searchParams.get('chat_id');
  if (chat) body.chat_id = chat;
  if (/(^|\.)discord(app)?\.com$/.test(u.hostname)) body.content = text;
  return body;
}

const RETRY_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

interface Lane {
  readonly target: WebhookTarget;
  readonly queue: Notification[];
  running: Promise<void> | null;
}

export class WebhookNotifier {
  private readonly lanes: Lane[];
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly maxQueued: number;
  private readonly logger: Logger;
  private readonly stop = new AbortController();
  /** Counts for tests and logs: delivered, given up. */
  readonly stats = { delivered: 0, failed: 0, dropped: 0 };

  constructor(opts: WebhookNotifierOptions) {
    for (const t of opts.targets) {
      let u: URL;
      try {
        u = new URL(t.url);
      } catch {
        throw new TypeError(`notify.webhooks: not a URL: ${redactUrl(t.url)}`);
      }
      if (u.protocol !== 'https:' && u.protocol !== 'http:')
        throw new TypeError(`notify.webhooks: expected an http(s) URL, got ${u.protocol}`);
    }
    this.lanes = opts.targets.map((target) => ({ target, queue: [], running: null }));
    this.maxAttempts = opts.maxAttempts ?? 6;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retryBaseMs = opts.retryBaseMs ?? 1000;
    this.retryMaxMs = opts.retryMaxMs ?? 60_000;
    this.maxQueued = opts.maxQueued ?? 1000;
    this.logger = opts.logger ?? silentLogger;
  }

  get enabled(): boolean {
    return this.lanes.length > 0;
  }

  /** Queues the notifications for every target that wants them, and returns at once. */
  send(notifications: readonly Notification[]): void {
    if (this.stop.signal.aborted) return;
    for (const lane of this.lanes) {
      for (const n of notifications) {
        if (!lane.target.events.has(n.event)) continue;
        if (lane.queue.length >= this.maxQueued) {
          this.stats.dropped++;
          this.logger.warn({ webhook: redactUrl(lane.target.url), event: n.event }, 'webhook queue full: dropped');
          continue;
        }
        lane.queue.push(n);
      }
      if (lane.queue.length > 0 && !lane.running) {
        lane.running = this.drain(lane).finally(() => {
          lane.running = null;
        });
      }
    }
  }

  /** Waits until everything queued was delivered or given up, at most `timeoutMs`; then stops trying. */
  async flush(timeoutMs: number): Promise<void> {
    const all = Promise.all(this.lanes.map((l) => l.running));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    await Promise.race([all, late]);
    clearTimeout(timer);
    const left = this.lanes.reduce((n, l) => n + l.queue.length, 0);
    this.stop.abort();
    if (left > 0) this.logger.warn({ notifications: left }, 'stopping: webhook notifications not delivered');
    await all;
  }

  private async drain(lane: Lane): Promise<void> {
    while (lane.queue.length > 0 && !this.stop.signal.aborted) {
      const n = lane.queue[0]!;
      await this.deliver(lane.target.url, n);
      lane.queue.shift();
    }
  }

  private async deliver(url: string, n: Notification): Promise<void> {
    // The notification's message was scrubbed of the offer's credentials; the body leaves through the scrubber too.
    const body = scrubSecrets(JSON.stringify(webhookBody(url, n)));
    const log = this.logger.child({ webhook: redactUrl(url), event: n.event });
    const { request } = await import('./undici-request.ts');
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      let retryAfterMs: number | undefined;
      let why: string;
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'offersync' },
          body,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.timeoutMs)]),
        });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) {
          this.stats.delivered++;
          log.debug({ attempt }, 'webhook delivered');
          return;
        }
        why = `HTTP ${res.statusCode}`;
        if (!RETRY_STATUS.has(res.statusCode)) {
          this.stats.failed++;
          log.warn({ status: res.statusCode }, 'webhook refused the notification: not retried');
          return;
        }
        const ra = Number(res.headers['retry-after']);
        if (Number.isFinite(ra) && ra >= 0) retryAfterMs = ra * 1000;
      } catch (err) {
        if (this.stop.signal.aborted) return;
        why = (err as Error).name === 'TimeoutError' ? 'timed out' : ((err as NodeJS.ErrnoException).code ?? 'error');
      }
      if (attempt === this.maxAttempts) break;
      const backoff = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (attempt - 1));
      const delay = Math.min(this.retryMaxMs, retryAfterMs ?? backoff / 2 + Math.random() * (backoff / 2));
      log.info({ attempt, why, retryInMs: Math.round(delay) }, 'webhook failed: retrying');
      await sleep(delay, this.stop.signal);
      if (this.stop.signal.aborted) return;
    }
    this.stats.failed++;
    log.warn({ attempts: this.maxAttempts }, 'webhook failed: gave up');
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
