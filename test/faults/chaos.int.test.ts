/**
 * The randomized fault campaign on one NATS node (`pnpm chaos`: 100 trials; here a 10-trial
 * smoke run of seed 1234). See `chaos/suite.ts` for the settings and `README.md` for the faults.
 */
import { campaignSuite } from './chaos/suite.js';

campaignSuite({ cluster: false, smoke: { trials: 10, seed: 1234 } });
