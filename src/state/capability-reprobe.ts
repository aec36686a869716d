// When a remembered capability verdict stops counting: a refusal is asked again after an interval (issue
// 10), with one request, since a marketplace may add a route later. A route found served stays served until
// it refuses.
import type { CapabilityRecord } from './records.ts';

/** true served, false refused, undefined never tried or refused at least `reprobeAfterMs` ago. */
export function capabilityUsable(
  rec: Pick<CapabilityRecord, 'usable' | 'learntAt'> | undefined,
  now: number,
  reprobeAfterMs: number,
): boolean | undefined {
  if (!rec) return undefined;
  if (rec.usable) return true;
  return now - rec.learntAt >= reprobeAfterMs ? undefined : false;
}
