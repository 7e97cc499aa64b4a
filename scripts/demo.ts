/**
 * `pnpm demo`: the orders scenario end to end, narrated. Brings the local stack up (provisioning
 * what is missing), seeds an `orders` index, applies examples/orders, then shows what each
 * agent gets, an order looked up through the agent loop, the guard rails (a restricted field,
 * a denied tool, a corrected call, an approval-gated write) and a preference learned and
 * recalled. Every `$ tollgate …` line is the real command, run in this process.
 */
import { runDemo } from './demo.steps.js';
import { Narrator } from './demo.narrator.js';

const env: NodeJS.ProcessEnv = {
  ...process.env,
  // The local Elasticsearch needs no authentication; the Resource names this variable.
  TOLLGATE_DEMO_ES_CREDENTIAL: process.env.TOLLGATE_DEMO_ES_CREDENTIAL ?? '{"kind":"none"}',
};

const narrator = new Narrator(env);
try {
  await runDemo(narrator);
  process.exit(0);
} catch (err) {
  narrator.failed(err);
  process.exit(1);
}
