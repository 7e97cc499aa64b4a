/** What every governed call in the demo is checked against: its record in the audit log. */
import { DemoError } from './demo.narrator.js';
import type { Narrator } from './demo.narrator.js';

interface AuditDoc {
  records: Array<{ event: { type: string; traceId: string } }>;
}

/**
 * Waits for the audit record of type `type` of call `callId`, shows `tollgate audit query` for
 * it, and checks that it carries the trace id the reply did.
 */
export async function auditRecord(
  n: Narrator,
  callId: string,
  traceId: string,
  type: string,
): Promise<void> {
  await n.until(`the audit record of call ${callId}`, async () => {
    const doc = await n.json<AuditDoc>(['audit', 'query', '--call', callId]);
    return doc.records.find((r) => r.event.type === type);
  });
  await n.tollgate(['audit', 'query', '--call', callId]);
  const doc = await n.json<AuditDoc>(['audit', 'query', '--call', callId]);
  const record = doc.records.find((r) => r.event.type === type)!;
  if (record.event.traceId !== traceId)
    throw new DemoError(`trace ids differ: reply ${traceId}, audit ${record.event.traceId}`);
  n.ok(`the reply and the audit record carry the same trace id ${traceId}`);
}
