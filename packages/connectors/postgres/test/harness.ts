/** The postgres connector driven the way the executor drives it (the SQL core's test harness). */
import { sqlHarness } from '../../sql/test/harness.js';
import { postgresConnector } from '../src/index.js';

export const connector = postgresConnector;

const harness = sqlHarness(postgresConnector);
export const discovered = harness.discovered;
export const compilePostgres = harness.compile;
export const callPostgres = harness.call;
