// /__sandbox/ routes: the RunningSandbox controls over HTTP, for tests in another process; never counted. They
// change and dump everything, stored credentials included: without a key only on loopback, where no one else can
// reach them; a sandbox listening beyond it (--host 0.0.0.0, in a container) asks for its API key.
import { isIP } from 'node:net';
import {
  checkFaults,
  checkRateLimit,
  checkRepresentation,
  type OfferKind,
  type RateLimit,
  type RunningSandbox,
  type SandboxFaults,
  type SandboxRepresentation,
} from './sandbox-options.ts';
import { HttpError } from './http-error.ts';

export type Controls = Omit<RunningSandbox, 'url' | 'port' | 'close'>;

/** False only for a bind address no other machine can reach: 127.0.0.0/8, ::1, localhost. */
export function controlNeedsKey(bindHost: string): boolean {
  const host = bindHost.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return false;
  if (isIP(host) === 4) return !host.startsWith('127.');
  return !(host === '::1' || host === '0:0:0:0:0:0:0:1');
}

export interface ControlAnswer {
  readonly status: number;
  readonly body: unknown;
}

function parse(raw: Buffer): unknown {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `Malformed JSON: ${(err as Error).message}`);
  }
}

/** Option errors (TypeError from the checks) become 422s naming the option. */
function checked<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof TypeError) throw new HttpError(422, err.message);
    throw err;
  }
}

export function handleControl(controls: Controls, method: string, path: string, raw: Buffer): ControlAnswer {
  const done = { status: 200, body: { success: true } };
  const route = `${method} ${path.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /__sandbox/counters':
      return { status: 200, body: controls.counters() };
    case 'GET /__sandbox/dump':
      return { status: 200, body: controls.dump() };
    case 'POST /__sandbox/reset':
      controls.reset();
      return done;
    case 'POST /__sandbox/reset-counters':
      controls.resetCounters();
      return done;
    case 'POST /__sandbox/faults': {
      const f = parse(raw) ?? {};
      controls.setFaults(checked(() => checkFaults(f as SandboxFaults)));
      return done;
    }
    case 'POST /__sandbox/representation': {
      const r = parse(raw) ?? {};
      controls.setRepresentation(checked(() => checkRepresentation(r as SandboxRepresentation)));
      return done;
    }
    case 'POST /__sandbox/rate-limit': {
      const r = parse(raw);
      controls.setRateLimit(checked(() => checkRateLimit(r as RateLimit | null)));
      return done;
    }
    case 'POST /__sandbox/status': {
      const b = parse(raw) as { kind?: unknown; identifier?: unknown; status?: unknown } | null;
      if (
        !b ||
        typeof b.kind !== 'string' ||
        (typeof b.identifier !== 'string' && typeof b.identifier !== 'number') ||
        typeof b.status !== 'string'
      ) {
        throw new HttpError(
          422,
          'Expected {kind: "accounts"|"items"|"top-ups", identifier: string|number, status: string}.',
        );
      }
      const { kind, identifier, status } = b;
      try {
        controls.setStatus(kind as OfferKind, identifier, status);
      } catch (err) {
        throw new HttpError(/not found/i.test((err as Error).message) ? 404 : 422, (err as Error).message);
      }
      return done;
    }
    case 'POST /__sandbox/sell': {
      const b = parse(raw) as { kind?: unknown; identifier?: unknown; quantity?: unknown; keepStock?: unknown } | null;
      if (
        !b ||
        typeof b.kind !== 'string' ||
        (typeof b.identifier !== 'string' && typeof b.identifier !== 'number') ||
        typeof b.quantity !== 'number' ||
        (b.keepStock !== undefined && typeof b.keepStock !== 'boolean')
      ) {
        throw new HttpError(
          422,
          'Expected {kind: "items"|"top-ups", identifier: string|number, quantity: integer >= 1, keepStock?: boolean}.',
        );
      }
      const { kind, identifier, quantity, keepStock } = b;
      try {
        const after = checked(() => controls.sell(kind as OfferKind, identifier, quantity, keepStock));
        return { status: 200, body: { success: true, sold_count: after.soldCount, stock: after.stock } };
      } catch (err) {
        if (err instanceof HttpError) throw err;
        throw new HttpError(/not found/i.test((err as Error).message) ? 404 : 422, (err as Error).message);
      }
    }
    default:
      throw new HttpError(404, `No sandbox control route ${route}.`);
  }
}
