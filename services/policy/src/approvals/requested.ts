import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { ApprovalStatus } from '@tollgate/contracts/policy/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { EVENT_SCHEMA_VERSION, EventTypes, decodeEnvelope } from '@tollgate/kit';
import type { ApprovalRecord } from './record.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RESOURCE_NAME = /^[a-z][a-z0-9_]{2,62}$/;
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const BINDING_HASH = /^sha256:[0-9a-f]{64}$/;
const MAX_TEXT = 200;

export interface ReadOptions {
  /** Expiry when the event names none: requested + this. */
  defaultTtlMs: number;
}

/**
 * Reads an `approval.requested` event into the approval to record, checking every field the
 * protocol needs (docs/services.md): a UUID id, status PENDING, the requester in the event's
 * tenant, resource and version, tool, the binding hash, the call id and a coherent expiry. When
 * the event has no expiry, it expires `defaultTtlMs` after it was requested.
 */
export function readApprovalRequested(
  bytes: Uint8Array,
  options: ReadOptions,
): { record: ApprovalRecord } | { invalid: string } {
  let event: EventEnvelope;
  try {
    event = decodeEnvelope(bytes);
  } catch (err) {
    return { invalid: `not an event envelope: ${(err as Error).message}` };
  }
  if (event.schemaVersion !== EVENT_SCHEMA_VERSION)
    return { invalid: `schema version ${event.schemaVersion} is not ${EVENT_SCHEMA_VERSION}` };
  if (event.type !== EventTypes.approvalRequested || event.payload.case !== 'approvalRequested')
    return { invalid: `expected an approval.requested event, found "${event.type}"` };
  const a = event.payload.value.approval;
  if (a === undefined) return { invalid: 'approval is missing' };
  const problem = (field: string, expected: string, found: unknown): { invalid: string } => ({
    invalid: `approval.${field}: expected ${expected}, found ${JSON.stringify(found)}`,
  });
  if (!UUID.test(a.id)) return problem('id', 'a lowercase UUID', a.id);
  if (a.status !== ApprovalStatus.PENDING)
    return problem('status', 'PENDING', ApprovalStatus[a.status]);
  const p = a.principal;
  if (p === undefined) return problem('principal', 'the requesting principal', null);
  if (p.tenant !== event.tenant || !NAME.test(p.tenant))
    return problem('principal.tenant', `the event's tenant "${event.tenant}"`, p.tenant);
  if (!NAME.test(p.agent)) return problem('principal.agent', 'an agent name', p.agent);
  if (p.user.length > MAX_TEXT)
    return problem('principal.user', `at most ${MAX_TEXT} characters`, p.user.length);
  if (!RESOURCE_NAME.test(a.resource)) return problem('resource', 'a resource name', a.resource);
  if (a.resourceVersion < 1) return problem('resource_version', 'a version ≥ 1', a.resourceVersion);
  if (a.tool === '' || a.tool.length > MAX_TEXT) return problem('tool', 'a tool name', a.tool);
  if (!BINDING_HASH.test(a.argumentsHash))
    return problem('arguments_hash', 'sha256:<64 hex digits>', a.argumentsHash);
  if (a.callId === '' || a.callId.length > MAX_TEXT)
    return problem('call_id', 'a call id', a.callId);
  if (a.sessionId.length > MAX_TEXT)
    return problem('session_id', `at most ${MAX_TEXT} characters`, a.sessionId.length);
  const requestedAt = dateOf(a.requestedAt) ?? dateOf(event.occurredAt);
  if (requestedAt === undefined) return problem('requested_at', 'a time', null);
  const expiresAt = dateOf(a.expiresAt) ?? new Date(requestedAt.getTime() + options.defaultTtlMs);
  if (expiresAt.getTime() <= requestedAt.getTime())
    return problem('expires_at', 'a time after requested_at', expiresAt.toISOString());
  return {
    record: {
      id: a.id,
      tenant: event.tenant,
      status: 'pending',
      principal: {
        tenant: p.tenant,
        agent: p.agent,
        environment: p.environment,
        user: p.user,
        roles: [...p.roles],
        tokenId: p.tokenId,
      },
      resource: a.resource,
      resourceVersion: a.resourceVersion,
      tool: a.tool,
      argumentsHash: a.argumentsHash,
      callId: a.callId,
      sessionId: a.sessionId,
      arguments: a.arguments ?? {},
      policyIds: [...a.policyIds],
      requestedAt,
      expiresAt,
    },
  };
}

function dateOf(ts: Timestamp | undefined): Date | undefined {
  if (ts === undefined) return undefined;
  const date = timestampDate(ts);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
