/** How a preference is read back from `memory_preferences`, every field checked. */
import type { StoredDocument } from '../store/collections.js';
import { StoredDoc } from '../store/stored-doc.js';
import type { PreferenceRecord } from '../types.js';

export function readPreference(doc: StoredDocument): PreferenceRecord {
  const d = new StoredDoc('memory_preferences', doc);
  return {
    id: d.string('_id'),
    owner: d.owner(),
    key: d.string('key'),
    kind: d.string('kind'),
    value: d.json('valueJson'),
    text: d.string('text'),
    status: d.oneOf('status', ['proposed', 'active'] as const),
    source: d.oneOf('source', ['stated', 'agent', 'derived'] as const),
    sessionId: d.string('sessionId'),
    createdBy: d.actor('createdBy'),
    confirmedBy: d.optionalActor('confirmedBy'),
    createdAt: d.date('createdAt'),
    updatedAt: d.date('updatedAt'),
    lastConfirmedAt: d.optionalDate('lastConfirmedAt'),
    score: d.number('score'),
    version: d.number('version'),
  };
}
