// Idempotency-Key on creates (IETF httpapi idempotency-key draft, as Stripe does it): the first answer to a
// key is kept, a repeat with the same body gets it again without doing anything, the same key with another
// body is refused. Only successes are kept: a refused create did nothing, so doing it again is harmless.
import { createHash } from 'node:crypto';

export interface KeptAnswer {
  readonly status: number;
  readonly body: unknown;
}

export type IdempotencyLookup =
  | { readonly kind: 'new' }
  | { readonly kind: 'replay'; readonly answer: KeptAnswer }
  | { readonly kind: 'mismatch' };

/** Oldest keys are forgotten first beyond this many (a real marketplace keeps them for a day or so). */
const MAX_KEYS = 200_000;

export class IdempotencyKeys {
  readonly #kept = new Map<string, { readonly fingerprint: string; readonly answer: KeptAnswer }>();

  static fingerprint(raw: Buffer): string {
    return createHash('sha256').update(raw).digest('hex');
  }

  lookup(scope: string, key: string, fingerprint: string): IdempotencyLookup {
    const kept = this.#kept.get(`${scope}\n${key}`);
    if (!kept) return { kind: 'new' };
    return kept.fingerprint === fingerprint ? { kind: 'replay', answer: kept.answer } : { kind: 'mismatch' };
  }

  keep(scope: string, key: string, fingerprint: string, answer: KeptAnswer): void {
    if (this.#kept.size >= MAX_KEYS) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(`${scope}\n${key}`, { fingerprint, answer });
  }

  clear(): void {
    this.#kept.clear();
  }
}
