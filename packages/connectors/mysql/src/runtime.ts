/** What needs the driver: loaded on first use (see connector.ts). */
export { discoverMysql as discover } from './discovery/discover.js';
export { executeMysql as execute } from './execute/execute.js';
export { closePools, openPools } from './execute/pools.js';
