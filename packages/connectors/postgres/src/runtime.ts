/** What needs the driver: loaded on first use (see connector.ts). */
export { discoverPostgres } from './discovery/discover.js';
export { executePg } from './execute/execute.js';
export { closePools, openPools } from './execute/pools.js';
