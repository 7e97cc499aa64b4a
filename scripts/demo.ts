/**
 * `pnpm demo`: the orders scenario end to end, narrated. Brings the local stack up (provisioning
 * what is missing), seeds an `orders` index, applies examples/orders, then shows what each
 * agent gets, an order looked up through the agent loop, the guard rails (a restricted field,
 * a denied tool, a corrected call, an approval-gated write) and a preference learned and
 * recalled, a skill reviewed and reused, then other kinds of system (an upstream MCP server, a
 * PostgreSQL table, an HTTP API) and the same tools over MCP and in the console. Every
 * `$ tollgate …` line is the real command, run in this process.
 */
import { kindCredentials } from './demo.kinds.js';
import { runDemo } from './demo.steps.js';
import { Narrator } from './demo.narrator.js';

const env: NodeJS.ProcessEnv = {
  ...process.env,
  // The demo seeds and tells team-a/prod whatever the person's shell defaults the CLI to.
  TOLLGATE_TENANT: 'team-a',
  TOLLGATE_ENV: 'prod',
  // The local Elasticsearch needs no authentication; the Resource names this variable, which
  // lies in team-a/prod's credential namespace (TOLLGATE_<TENANT>__<ENVIRONMENT>__…, the default).
  TOLLGATE_TEAM_A__PROD__ES_ORDERS:
    process.env.TOLLGATE_TEAM_A__PROD__ES_ORDERS ?? '{"kind":"none"}',
  // The PostgreSQL login and the Directus token the other resources name, from the local stack
  // (the services read them when `tollgate up` starts them).
  ...kindCredentials(process.env),
};

const narrator = new Narrator(env);
try {
  await runDemo(narrator);
  process.exit(0);
} catch (err) {
  narrator.failed(err);
  process.exit(1);
}
