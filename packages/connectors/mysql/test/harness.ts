/** The mysql connector driven the way the executor drives it (the SQL core's test harness). */
import { sqlHarness } from '../../sql/test/harness.js';
import { mysqlConnector } from '../src/index.js';

export const connector = mysqlConnector;

const harness = sqlHarness(mysqlConnector);
export const discovered = harness.discovered;
export const compileMysql = harness.compile;
export const callMysql = harness.call;
