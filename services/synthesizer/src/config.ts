/**
 * The synthesizer's settings (on top of the common ones), from the environment.
 */
import { cfg, credentialNamespacesConfig } from '@tollgate/kit';

export const synthesizerConfig = {
  memoryGrpcAddr: cfg.string(
    'TOLLGATE_MEMORY_GRPC_ADDR',
    'memory service address for ranking preferences; unset: rank without preferences',
    '',
  ),
  preferenceTimeoutMs: cfg.int(
    'TOLLGATE_SYNTHESIZER_PREFERENCE_TIMEOUT_MS',
    'how long ListTools waits for preferences from the memory service (ms)',
    250,
    10,
    10_000,
  ),
  preferenceTtlMs: cfg.int(
    'TOLLGATE_SYNTHESIZER_PREFERENCE_TTL_MS',
    "how long a principal's preferences are reused before asking again (ms)",
    30_000,
    0,
    3_600_000,
  ),
  toolCacheSize: cfg.int(
    'TOLLGATE_SYNTHESIZER_TOOL_CACHE_SIZE',
    'tool sets (resource version × permission set) kept synthesized (each ~50-200 KB)',
    5_000,
    1,
    1_000_000,
  ),
  /** The executor's rule: resources it would refuse to resolve a credential for are not offered. */
  credentialNamespaces: credentialNamespacesConfig,
  queue: cfg.string(
    'TOLLGATE_SYNTHESIZER_QUEUE',
    'NATS queue group synthesizer instances share list_tools/get_tool requests in',
    'synthesizer',
  ),
};
