// Reading a failed call of a probed route (src/capabilities/gate.ts): here in sync, beside the other readings of
// the client's errors (errors.ts), since the capabilities module sits below sync and may not import it.
import { statusOf } from '../run-stopped.ts';

/** A refusal that says "this route or body shape is not served", as opposed to "this offer failed". */
export function isCapabilityRefusal(err: unknown): boolean {
  const status = statusOf(err);
  return status === 404 || status === 405 || status === 422 || status === 501;
}
