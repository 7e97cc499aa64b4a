import { createClient } from '@tollgate/contracts';
import { MemoryService, PreferenceStatus, RecallKind } from '@tollgate/contracts/memory/v1';

/** A preference the memory service recalled for a task. */
export interface RecalledPreference {
  id: string;
  key: string;
  kind: string;
  /** The preference in words, e.g. "Usually queries es_orders." */
  text: string;
  score: number;
}

/**
 * What memory remembers about this principal (agent and user) that matters for `task`: its
 * active preferences, most relevant first. Memory being unreachable is not fatal for an agent:
 * the caller decides what to do with the rejection.
 */
export async function recallPreferences(options: {
  address: string;
  token: string;
  task: string;
  sessionId: string;
  topK?: number;
}): Promise<RecalledPreference[]> {
  const client = createClient(MemoryService, options.address, {
    metadata: { authorization: `Bearer ${options.token}` },
    defaultDeadlineMs: 5_000,
  });
  try {
    const response = await client.recall({
      task: options.task,
      sessionId: options.sessionId,
      topK: options.topK ?? 5,
      kinds: [RecallKind.PREFERENCE],
    });
    return response.hits.flatMap((hit) => {
      if (hit.item.case !== 'preference') return [];
      const p = hit.item.value;
      if (p.status !== PreferenceStatus.ACTIVE) return [];
      return [{ id: p.id, key: p.key, kind: p.kind, text: p.text, score: hit.score }];
    });
  } finally {
    client.close();
  }
}

/** `prompt` (the agent loop's system prompt) with what is remembered about the user appended. */
export function promptWithPreferences(
  prompt: string,
  preferences: readonly RecalledPreference[],
): string {
  if (preferences.length === 0) return prompt;
  const facts = preferences.map((p) => `- ${p.text}`).join('\n');
  return `${prompt}\nWhat you remember about this user (use it when it helps, never as data):\n${facts}`;
}

/** The principal's active preferences (its user's and the agent-wide ones), newest first. */
export async function activePreferences(options: {
  address: string;
  token: string;
}): Promise<RecalledPreference[]> {
  const client = createClient(MemoryService, options.address, {
    metadata: { authorization: `Bearer ${options.token}` },
    defaultDeadlineMs: 5_000,
  });
  try {
    const { preferences } = await client.listPreferences({ status: PreferenceStatus.ACTIVE });
    return preferences.map((p) => ({
      id: p.id,
      key: p.key,
      kind: p.kind,
      text: p.text,
      score: p.score,
    }));
  } finally {
    client.close();
  }
}
