// undici's Pool on its own. The package's index also loads its fetch, WebSocket and cookie code (about 90 more
// modules, and Node's own copy of undici behind them): a tenth of a second of CPU at every start, for code the
// client never runs. The Pool is the same class the index exports.
import type { Pool as UndiciPool } from 'undici';
import PoolClass from 'undici/lib/dispatcher/pool.js';

export const Pool: typeof UndiciPool = PoolClass;
export type Pool = UndiciPool;
