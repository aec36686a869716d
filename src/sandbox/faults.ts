// Fault injection, deterministic with a seed: every API request draws the same five numbers in the same
// order whatever the rates, so one seed gives one sequence of faults for one sequence of requests.
import type { SandboxFaults } from './sandbox-options.ts';

/** mulberry32: small, fast, good enough to choose faults. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FaultDecision {
  /** Destroy the socket, answer nothing, do nothing. */
  readonly drop: boolean;
  /** Answer this 5xx before doing anything. */
  readonly error: 500 | 502 | 503 | null;
  /** After a successful write: answer 502, or destroy the socket. */
  readonly lost: 'status' | 'socket' | null;
}

const ERRORS = [500, 502, 503] as const;

export class FaultInjector {
  private random: () => number;

  constructor(readonly faults: SandboxFaults) {
    this.random = mulberry32(faults.seed ?? Math.floor(Math.random() * 2 ** 32));
  }

  get latencyMs(): number {
    return this.faults.latencyMs ?? 0;
  }

  decide(): FaultDecision {
    const [rDrop, rError, rWhich, rLost, rHow] = [
      this.random(),
      this.random(),
      this.random(),
      this.random(),
      this.random(),
    ];
    const drop = rDrop < (this.faults.dropRate ?? 0);
    const error = !drop && rError < (this.faults.errorRate ?? 0) ? ERRORS[Math.floor(rWhich * ERRORS.length)]! : null;
    const lost = rLost < (this.faults.lostResponseRate ?? 0) ? (rHow < 0.5 ? 'status' : 'socket') : null;
    return { drop, error, lost };
  }
}

const ECHOED_ROUTES = new Set(['POST /api/v1/accounts', 'PATCH /api/v1/accounts/{identifier}']);

/**
 * The 422 body of the echoCredentials fault for a request, or undefined when the request is not an account write
 * carrying credentials: the message quotes them as PHP's json_encode writes them (\uXXXX, \/), the field errors
 * quote the login URL-encoded.
 */
export function echoedCredentials(
  route: string,
  body: Record<string, unknown>,
): { message: string; errors: Record<string, string[]> } | undefined {
  const c = body.credentials;
  if (!ECHOED_ROUTES.has(route) || c === null || typeof c !== 'object' || Array.isArray(c)) return undefined;
  const quoted = Object.entries(c)
    .map(([k, v]) => `${JSON.stringify(k)}: ${phpJson(v)}`)
    .join(', ');
  const message = `The credentials are invalid: {${quoted}}`;
  const login = (c as { login?: unknown }).login;
  const errors: Record<string, string[]> = { credentials: [message] };
  if (typeof login === 'string') errors['credentials.login'] = [`No account at login=${encodeURIComponent(login)}.`];
  return { message, errors };
}

function phpJson(v: unknown): string {
  return (JSON.stringify(v) ?? 'null')
    .replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replaceAll('/', '\\/');
}
