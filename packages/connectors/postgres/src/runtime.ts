/** What needs the driver: loaded on first use (see connector.ts). */
export { discoverPostgres as discover } from './discovery/discover.js';
export { executePg as execute } from './execute/execute.js';
export { closePools, openPools } from './execute/pools.js';
