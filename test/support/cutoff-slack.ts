// Incremental reads re-read what was stamped within CUTOFF_SLACK_MS before the previous read started. A test that
// counts the pages of one waits this long after its last write first, so those writes lie below the cutoff.
import { CUTOFF_SLACK_MS } from '../../src/sync/plan/marketplace-clocks.ts';

/** Waits past the cutoff's slack, and the second a marketplace may floor a stamp to. */
export async function pastCutoffSlack(): Promise<void> {
  await new Promise((r) => setTimeout(r, CUTOFF_SLACK_MS + 1_100));
}
