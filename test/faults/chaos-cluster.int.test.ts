/**
 * The randomized fault campaign on a 3-node NATS cluster, streams and buckets at 3 replicas,
 * with NATS node faults on top (`pnpm chaos`: 100 trials; here an 8-trial smoke run, each
 * fault once, of seed 4321). See `chaos/suite.ts` and `README.md`.
 */
import { campaignSuite } from './chaos/suite.js';

campaignSuite({ cluster: true, smoke: { trials: 8, seed: 4321 } });
