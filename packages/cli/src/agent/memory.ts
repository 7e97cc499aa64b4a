import { createClient } from '@tollgate/contracts';
import { MemoryService, PreferenceStatus } from '@tollgate/contracts/memory/v1';

/** A preference in effect, as `tollgate` shows it. */
export interface ActivePreference {
  id: string;
  key: string;
  kind: string;
  /** The preference in words, e.g. "Usually queries es_orders." */
  text: string;
  score: number;
}

/** The principal's active preferences (its user's and the agent-wide ones), newest first. */
export async function activePreferences(options: {
  address: string;
  token: string;
}): Promise<ActivePreference[]> {
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
