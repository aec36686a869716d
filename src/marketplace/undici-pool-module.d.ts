// The file undici-pool.ts imports: undici ships no types for it; it is the Pool its index exports.
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolClass: typeof Pool;
  export default PoolClass;
}
