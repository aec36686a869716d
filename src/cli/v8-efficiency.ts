// A one-shot reconcile or plan of a small catalogue has nobody waiting on its next millisecond: in V8's efficiency
// mode a function is optimized by its top compiler only after about 15,000 calls instead of 3,000, and garbage is
// collected without helper threads. A first sync of 3,000 offers then spent 0.1 s of CPU on V8's own threads
// instead of 0.4, and its whole CPU fell by a tenth. A large catalogue does without it: its heap grew by 100 MB
// (a 100,000-offer first sync peaked at 349 MB). The daemon and the sandbox, servers, keep V8's usual tiering.
// V8 reads this flag as it goes.
import { setFlagsFromString } from 'node:v8';

/** From now on: compile and collect for the least CPU in all, not the shortest pause. */
export function favourThroughputOverLatency(): void {
  setFlagsFromString('--efficiency-mode');
}
