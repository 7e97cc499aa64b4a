/**
 * The memory service's settings (on top of the common ones), from the environment.
 */
import { buckets, cfg } from '@tollgate/kit';
import type { ConfigField, ConfigOf } from '@tollgate/kit';
import { FREE_TEXT, TYPED_KINDS } from './preferences/typed-facts.js';

const DAY_MS = 24 * 3600_000;

/** Auto-written kinds: typed kinds only, since free text is always staged for a reviewer. */
function autoKinds(env: string, description: string, dflt: string[]): ConfigField<string[]> {
  return {
    env,
    description,
    default: dflt,
    parse(raw) {
      const items = raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
      const bad = items.find((item) => !(TYPED_KINDS as readonly string[]).includes(item));
      if (bad !== undefined) {
        throw new Error(
          `expected comma-separated typed kinds (${TYPED_KINDS.join(', ')}); ${bad} is not one${bad === FREE_TEXT ? ' (free text is never written at once)' : ''}`,
        );
      }
      return items;
    },
  };
}

function positive(env: string, description: string, dflt: number): ConfigField<number> {
  return {
    env,
    description,
    default: dflt,
    parse(raw) {
      const n = Number(raw);
      if (!Number.isFinite(n) || n <= 0) throw new Error('expected a positive number');
      return n;
    },
  };
}

export const memoryConfig = {
  durable: cfg.string(
    'TOLLGATE_MEMORY_DURABLE',
    'durable consumer name for call.completed',
    'memory',
  ),
  bucket: cfg.string(
    'TOLLGATE_MEMORY_BUCKET',
    'KV bucket of approved saved queries and preferred fields for the call path (tests use their own)',
    buckets.memory,
  ),
  learnFrom: cfg.oneOf(
    'TOLLGATE_MEMORY_LEARN_FROM',
    'where a new durable consumer starts: every retained call.completed (all) or only new ones',
    ['all', 'new'] as const,
    'all',
  ),
  autoKinds: autoKinds(
    'TOLLGATE_MEMORY_AUTO_KINDS',
    'typed preference kinds written at once once their value checks out; other kinds, and free text always, are staged for a reviewer',
    ['frequent_resource', 'preferred_fields', 'language'],
  ),
  reviewerRole: cfg.string(
    'TOLLGATE_MEMORY_REVIEWER_ROLE',
    "the role (of an Agent in the tenant's policy bundle) that makes a principal with a user claim a reviewer: the review surfaces' agents, e.g. the command line and the console",
    'reviewer',
  ),
  fourEyes: cfg.bool(
    'TOLLGATE_MEMORY_FOUR_EYES',
    'what is proposed for every user of an agent is confirmed by another person than the one whose session proposed it',
    true,
  ),
  policyBucket: cfg.string(
    'TOLLGATE_MEMORY_POLICY_BUCKET',
    'KV bucket of the compiled policy bundles facts and reviewers are checked against (tests use their own)',
    buckets.policyBundles,
  ),
  sessionIdleMs: cfg.int(
    'TOLLGATE_MEMORY_SESSION_IDLE_MS',
    'a session snapshot expires after this long without a write',
    DAY_MS,
    1_000,
  ),
  sweepIntervalMs: cfg.int(
    'TOLLGATE_MEMORY_SWEEP_INTERVAL_MS',
    'how often expired sessions are deleted, unsent events retried and the memory bucket reconciled',
    60_000,
    100,
  ),
  halfLifeMs: cfg.int(
    'TOLLGATE_MEMORY_HALF_LIFE_MS',
    'half-life of usage scores behind derived preferences',
    7 * DAY_MS,
    1_000,
  ),
  preferenceThreshold: positive(
    'TOLLGATE_MEMORY_PREFERENCE_THRESHOLD',
    'decayed usage score at which a derived preference is written (2.5 ≈ three recent uses)',
    2.5,
  ),
  candidateMinUses: cfg.int(
    'TOLLGATE_MEMORY_CANDIDATE_MIN_USES',
    'same-shape uses of a tool within the window that make a saved-query candidate',
    3,
    2,
    1_000,
  ),
  candidateWindowMs: cfg.int(
    'TOLLGATE_MEMORY_CANDIDATE_WINDOW_MS',
    'window in which same-shape uses are counted',
    7 * DAY_MS,
    1_000,
  ),
  auditWaitMs: cfg.int(
    'TOLLGATE_MEMORY_AUDIT_WAIT_MS',
    'how long a completed call (or a call an ended session records) may still be missing from the audit trail before memory gives up learning from it',
    30_000,
    100,
  ),
  maxSessionBytes: cfg.int(
    'TOLLGATE_MEMORY_MAX_SESSION_BYTES',
    'largest session snapshot accepted (JSON bytes)',
    256 * 1024,
    1_024,
    8 * 1024 * 1024,
  ),
};

export type MemoryConfig = ConfigOf<typeof memoryConfig>;

/** What the service logic needs of the configuration. */
export type MemorySettings = Omit<
  MemoryConfig,
  'durable' | 'bucket' | 'policyBucket' | 'learnFrom' | 'sweepIntervalMs'
>;

export const DEFAULT_SETTINGS: MemorySettings = {
  autoKinds: ['frequent_resource', 'preferred_fields', 'language'],
  reviewerRole: 'reviewer',
  fourEyes: true,
  sessionIdleMs: DAY_MS,
  halfLifeMs: 7 * DAY_MS,
  preferenceThreshold: 2.5,
  candidateMinUses: 3,
  candidateWindowMs: 7 * DAY_MS,
  auditWaitMs: 30_000,
  maxSessionBytes: 256 * 1024,
};
